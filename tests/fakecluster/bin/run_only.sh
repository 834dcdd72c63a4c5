#!/bin/sh
# fake run_only.sh: see ../fake.lua
exec "${FAKE_LLMDLUA:-llmdlua}" "$(dirname "$0")/../fake.lua" run_only.sh "$@"
