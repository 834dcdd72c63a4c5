/*
** closest.c — the project's one rule for "did you mean": the word of a list a misspelt
** word most likely meant. Lua-free, so that the scan engine's errors (a CSV column
** misspelt) use it as the options checks and the Prometheus readers do.
*/
#include <string.h>

#include "closest.h"

/* Edit distance, bounded: insertions, deletions, substitutions and a swap of two neighbouring
   characters each count 1 (optimal string alignment: "lable" is 1 from "label", where plain
   Levenshtein counts 2); words longer than 64 bytes are never close. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    size_t before[65], prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t best = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < best)
                best = before[j - 2] + 1;
            cur[j] = best;
        }
        memcpy(before, prev, (lb + 1) * sizeof prev[0]);
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

size_t llmd_edit_distance(const char *a, const char *b)
{
    return edit_distance(a, b);
}

const char *llmd_closest(const char *word, const char *const list[])
{
    size_t wl = strlen(word), limit = wl / 3 > 1 ? wl / 3 : 1, best_d = (size_t)-1;
    const char *best = NULL, *prefix = NULL;
    for (size_t i = 0; list[i] != NULL; i++) {
        if (wl >= 3 && strncmp(list[i], word, wl) == 0) {
            /* the shortest word it begins */
            if (prefix == NULL || strlen(list[i]) < strlen(prefix))
                prefix = list[i];
            continue;
        }
        if (prefix != NULL)
            continue;
        size_t d = edit_distance(word, list[i]);
        if (d <= limit &&
            (d < best_d || (d == best_d && best != NULL && strlen(list[i]) < strlen(best)))) {
            best = list[i];
            best_d = d;
        }
    }
    return prefix != NULL ? prefix : best;
}
