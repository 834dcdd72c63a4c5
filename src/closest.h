/*
** closest.h — "did you mean": llmd_closest: the word of list (NULL-terminated) a misspelt
** word most likely meant (one it begins, the shortest of those, else the nearest by edit
** distance within a third of its length, the shorter on a tie), or NULL. Lua-free.
*/
#ifndef LLMD_CLOSEST_H
#define LLMD_CLOSEST_H

#include <stddef.h>

const char *llmd_closest(const char *word, const char *const list[]);
/* The edit distance of a and b, a swap of two neighbouring characters counting 1 (optimal
   string alignment); (size_t)-1 when either is longer than 64 bytes. */
size_t llmd_edit_distance(const char *a, const char *b);

#endif
