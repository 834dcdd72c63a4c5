/* shown.h: bytes of an input as they are quoted in an error message. */
#ifndef LLMDLUA_SHOWN_H
#define LLMDLUA_SHOWN_H

#include <stdio.h>
#include <string.h>

/* s[0..n) for a message: at most 40 bytes, those outside printable ASCII as \xNN. */
static inline const char *shown(char *out, size_t size, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && i < 40 && o + 5 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02X", c);
    }
    if (n > 40 && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

#endif
