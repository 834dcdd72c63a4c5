/*
** precompiled_none.c — no precompiled Lua: the first build of the binary, the one that
** compiles lua/ for the real one (scripts/precompile.lua), loads every file from its text.
*/
#include "precompiled.h"

const Precompiled llmd_precompiled[1] = {
    {NULL, 0, NULL, 0, 0, 0}
};
const size_t llmd_precompiled_count = 0;
