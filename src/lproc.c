/*
** lproc.c — llmd.proc: run(argv, opts), which(name).
**
** The child, its pipes and everything captured belong to a userdata whose __gc kills
** and reaps the process group, so an error anywhere (a raising line callback, Ctrl-C,
** out of memory) never leaves a child behind.
*/
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"

#include "modules.h"
#include "proc.h"

#define PROCESS_MT "llmd.proc.process"

extern char **environ;

typedef struct Stream {
    int mode;    /* 'c' capture, 'l' line callback, else not read */
    int fn;      /* stack index of the callback */
    int file_fd; /* an output file opened for the child, -1 when none */
    Strbuf buf;  /* captured output, or the partial line of a callback stream */
} Stream;

typedef struct Process {
    Proc p;
    Stream s[3]; /* [1] stdout, [2] stderr */
    int in_fd;   /* stdin file, -1 when none */
    lua_State *L;
    const char *argv0; /* anchored with the other strings for the process's life */
    int failed;        /* a line callback raised: its error is at the top of the stack */
} Process;

static void process_free(Process *pr)
{
    proc_release(&pr->p);
    for (int i = 1; i <= 2; i++) {
        if (pr->s[i].file_fd >= 0)
            close(pr->s[i].file_fd);
        pr->s[i].file_fd = -1;
        llmd_strbuf_free(&pr->s[i].buf);
    }
    if (pr->in_fd >= 0)
        close(pr->in_fd);
    pr->in_fd = -1;
}

static int process_gc(lua_State *L)
{
    process_free((Process *)luaL_checkudata(L, 1, PROCESS_MT));
    return 0;
}

static void call_line(Process *pr, Stream *st, const char *line, size_t n)
{
    lua_State *L = pr->L;
    if (pr->failed)
        return;
    lua_pushvalue(L, st->fn);
    lua_pushlstring(L, line, n);
    if (llmd_pcall(L, 1, 0) != LUA_OK) {
        pr->failed = 1; /* the error stays on the stack; run() raises it */
        pr->p.stop = 1; /* proc_wait ends the group: TERM, KILL after the grace, all reaped */
    }
}

static void sink(void *ud, int stream, const char *data, size_t n)
{
    Process *pr = (Process *)ud;
    Stream *st = &pr->s[stream];
    if (st->mode == 'c') {
        if (!llmd_strbuf_append(&st->buf, data, n))
            pr->failed = 2;
        return;
    }
    if (st->mode != 'l')
        return;
    const char *end = data + n;
    while (data < end) {
        const char *nl = (const char *)memchr(data, '\n', (size_t)(end - data));
        if (nl == NULL) {
            if (!llmd_strbuf_append(&st->buf, data, (size_t)(end - data)))
                pr->failed = 2;
            return;
        }
        if (st->buf.n > 0) {
            if (!llmd_strbuf_append(&st->buf, data, (size_t)(nl - data)))
                pr->failed = 2;
            call_line(pr, st, st->buf.p, st->buf.n);
            st->buf.n = 0;
        } else {
            call_line(pr, st, data, (size_t)(nl - data));
        }
        data = nl + 1;
    }
}

/* "kubectl get pods": the command as text, for messages. Pushes 1. */
static void push_cmdline(lua_State *L, const char *const *argv)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; argv[i] != NULL; i++) {
        if (i > 0)
            luaL_addchar(&b, ' ');
        luaL_addstring(&b, argv[i]);
    }
    luaL_pushresult(&b);
}

/*
** Reads opts[name] (stdout or stderr) into st, opening a file for {file=...}.
** Returns the ProcStdio for the spec.
*/
static ProcStdio parse_output(lua_State *L, int opts, const char *name, Stream *st, int *fd)
{
    int t = lua_getfield(L, opts, name); /* v */
    ProcStdio how = PROC_PIPE;
    st->mode = 'c';
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
    } else if (t == LUA_TFUNCTION) {
        st->mode = 'l';
        st->fn = lua_gettop(L); /* stays on the stack for the run */
    } else if (t == LUA_TSTRING) {
        const char *v = lua_tostring(L, -1);
        if (strcmp(v, "capture") == 0)
            how = PROC_PIPE;
        else if (strcmp(v, "inherit") == 0)
            how = PROC_INHERIT;
        else if (strcmp(v, "null") == 0)
            how = PROC_NULL;
        else if (strcmp(v, "stdout") == 0 && strcmp(name, "stderr") == 0)
            how = PROC_STDOUT;
        else
            luaL_error(L,
                       "proc.run: bad %s option '%s' (expected 'capture', 'inherit', "
                       "'null'%s, a function or {file = path})",
                       name, v, strcmp(name, "stderr") == 0 ? ", 'stdout'" : "");
        if (how != PROC_PIPE)
            st->mode = 0;
        lua_pop(L, 1);
    } else if (t == LUA_TTABLE) {
        lua_getfield(L, -1, "file");
        const char *path = lua_tostring(L, -1);
        if (path == NULL)
            luaL_error(L, "proc.run: %s = {...} needs a 'file' path", name);
        lua_getfield(L, -2, "append");
        int append = lua_toboolean(L, -1);
        *fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
        if (*fd < 0)
            luaL_error(L, "proc.run: %s: cannot open for %s: %s", path, name, strerror(errno));
        st->file_fd = *fd;
        st->mode = 0;
        how = PROC_FD;
        lua_pop(L, 3);
    } else {
        luaL_error(L, "proc.run: bad %s option (a %s)", name, luaL_typename(L, -1));
    }
    return how;
}

/* Builds envp from environ and opts.env (false removes a variable); NULL if unchanged. */
static const char **build_env(lua_State *L, int opts, int anchor)
{
    int has_env = lua_getfield(L, opts, "env") == LUA_TTABLE; /* env */
    lua_getfield(L, opts, "clear_env");
    int clear = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!has_env && !clear) {
        lua_pop(L, 1);
        return NULL;
    }
    lua_newtable(L); /* env, merged: name -> "name=value" */
    if (!clear) {
        for (char **e = environ; *e; e++) {
            const char *eq = strchr(*e, '=');
            if (eq == NULL)
                continue;
            lua_pushlstring(L, *e, (size_t)(eq - *e));
            lua_pushstring(L, *e);
            lua_rawset(L, -3);
        }
    }
    if (has_env) {
        lua_pushnil(L);
        while (lua_next(L, -3) != 0) { /* env, merged, k, v */
            if (lua_type(L, -2) != LUA_TSTRING)
                luaL_error(L, "proc.run: env keys must be strings");
            const char *k = lua_tostring(L, -2);
            lua_pushvalue(L, -2); /* env, merged, k, v, k */
            if (lua_type(L, -2) == LUA_TBOOLEAN && !lua_toboolean(L, -2)) {
                lua_pushnil(L);
            } else {
                const char *v = lua_tostring(L, -2);
                if (v == NULL)
                    luaL_error(L, "proc.run: env.%s must be a string, a number or false", k);
                lua_pushfstring(L, "%s=%s", k, v);
            }
            lua_rawset(L, -5); /* env, merged, k, v */
            lua_pop(L, 1);
        }
    }
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        lua_pop(L, 1);
        n++;
    }
    const char **envp = (const char **)lua_newuserdatauv(L, (n + 1) * sizeof *envp, 0);
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1); /* env, merged */
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        envp[i++] = lua_tostring(L, -1); /* anchored in merged */
        lua_pop(L, 1);
    }
    envp[i] = NULL;
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1); /* env */
    lua_pop(L, 1);
    return envp;
}

static double opt_number(lua_State *L, int opts, const char *name, double dflt)
{
    double v = dflt;
    if (lua_getfield(L, opts, name) != LUA_TNIL) {
        if (!lua_isnumber(L, -1))
            luaL_error(L, "proc.run: %s must be a number of seconds", name);
        v = (double)lua_tonumber(L, -1);
        if (!(v >= 0))
            luaL_error(L, "proc.run: %s must be >= 0", name);
    }
    lua_pop(L, 1);
    return v;
}

/*
** What a command that cannot start was expected to be, after strerror: a file named by
** its path that exists but is no program (a data file, a folder: newuser50b F8 read
** "/x/bad.json: cannot execute: Permission denied" as a problem with the data), or a
** name not in PATH. "" otherwise.
*/
static const char *exec_hint(const char *cmd, int err)
{
    struct stat st;
    if (err == ENOENT && strchr(cmd, '/') == NULL)
        return " (not found in PATH)";
    if ((err != EACCES && err != ENOEXEC) || strchr(cmd, '/') == NULL || stat(cmd, &st) != 0)
        return "";
    if (S_ISDIR(st.st_mode))
        return " (a folder: proc.run expected a program to run)";
    if (err == ENOEXEC)
        return " (proc.run expected a program: this file is neither a binary nor a script "
               "starting with #!)";
    if (S_ISREG(st.st_mode) && (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0)
        return " (proc.run expected a program: this file is not executable; a data file, "
               "or a script that needs chmod +x)";
    return "";
}

/*
** Parses argv and opts at 1 and 2 and starts the child. Leaves argv, opts, anchor and the
** process userdata at 1..4 and returns the process. background: proc.spawn, where
** nothing drains the child's output, so only "null", "inherit" or a file are allowed.
*/
static const char *const RUN_OPTS[] = {"env",    "clear_env", "cwd",        "stdin", "stdout",
                                       "stderr", "timeout",   "kill_grace", NULL};

static Process *start(lua_State *L, int background)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_newtable(L);
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_newtable(L); /* argv, opts, anchor: keeps every string the child needs */
    const int opts = 2, anchor = 3;
    llmd_check_keys(L, opts, background ? "proc.spawn" : "proc.run", RUN_OPTS, 0);

    lua_Integer argc = (lua_Integer)lua_rawlen(L, 1);
    if (argc == 0)
        luaL_error(L, "proc.run: argv is empty");
    const char **argv = (const char **)lua_newuserdatauv(L, ((size_t)argc + 1) * sizeof *argv, 0);
    lua_rawseti(L, anchor, 1);
    for (lua_Integer i = 1; i <= argc; i++) {
        lua_rawgeti(L, 1, i);
        if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "proc.run: argv[%d] must be a string (got %s)", (int)i,
                       luaL_typename(L, -1));
        argv[i - 1] = lua_tostring(L, -1);
        lua_rawseti(L, anchor, i + 1);
    }
    argv[argc] = NULL;

    Process *pr = (Process *)lua_newuserdatauv(L, sizeof *pr, 0); /* ..., process */
    memset(pr, 0, sizeof *pr);
    proc_init(&pr->p);
    pr->s[1].file_fd = pr->s[2].file_fd = -1;
    pr->in_fd = -1;
    pr->L = L;
    pr->argv0 = argv[0];
    luaL_setmetatable(L, PROCESS_MT);

    ProcSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.argv = argv;
    spec.in = PROC_NULL;

    if (lua_getfield(L, opts, "cwd") != LUA_TNIL) {
        spec.cwd = lua_tostring(L, -1);
        struct stat st;
        if (spec.cwd == NULL)
            luaL_error(L, "proc.run: cwd must be a string");
        if (stat(spec.cwd, &st) != 0)
            luaL_error(L, "proc.run: cwd '%s': %s", spec.cwd, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            luaL_error(L, "proc.run: cwd '%s': not a directory", spec.cwd);
        lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    } else {
        lua_pop(L, 1);
    }
    spec.envp = build_env(L, opts, anchor);

    int t = lua_getfield(L, opts, "stdin");
    if (t == LUA_TSTRING) {
        spec.in = PROC_PIPE;
        pr->p.stdin_data = lua_tolstring(L, -1, &pr->p.stdin_len);
        lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    } else if (t == LUA_TTABLE) {
        lua_getfield(L, -1, "file");
        lua_getfield(L, -2, "inherit");
        lua_getfield(L, -3, "pipe"); /* ..., stdin, file, inherit, pipe */
        int pipe_in = lua_toboolean(L, -1);
        lua_pop(L, 1); /* ..., stdin, file, inherit */
        if (pipe_in) {
            if (!background)
                luaL_error(L, "proc.run: stdin = {pipe = true} is proc.spawn's (give proc.run its "
                              "input as a string)");
            spec.in = PROC_PIPE;
            pr->p.keep_in = 1;
        } else if (lua_toboolean(L, -1)) {
            spec.in = PROC_INHERIT;
        } else if (lua_isstring(L, -2)) {
            const char *path = lua_tostring(L, -2);
            pr->in_fd = open(path, O_RDONLY | O_CLOEXEC);
            if (pr->in_fd < 0)
                luaL_error(L, "proc.run: %s: cannot open for stdin: %s", path, strerror(errno));
            spec.in = PROC_FD;
            spec.in_fd = pr->in_fd;
        } else {
            luaL_error(L, "proc.run: stdin = {...} needs 'file', 'inherit' or 'pipe'");
        }
        lua_pop(L, 3);
    } else if (t != LUA_TNIL) {
        luaL_error(L, "proc.run: stdin must be a string or a table");
    } else {
        lua_pop(L, 1);
    }

    for (int i = 1; i <= 2; i++) {
        const char *name = i == 1 ? "stdout" : "stderr";
        int absent = lua_getfield(L, opts, name) == LUA_TNIL;
        lua_pop(L, 1);
        ProcStdio how = PROC_NULL; /* a background process's default: discarded */
        int *fd = i == 1 ? &spec.out_fd : &spec.err_fd;
        if (!(background && absent))
            how = parse_output(L, opts, name, &pr->s[i], fd);
        if (i == 1)
            spec.out = how;
        else
            spec.err = how;
    }
    if (background) {
        if (spec.out == PROC_PIPE || spec.err == PROC_PIPE ||
            (spec.in == PROC_PIPE && !pr->p.keep_in))
            luaL_error(L,
                       "proc.spawn: stdin, stdout and stderr must be 'null', 'inherit' or a "
                       "file (nothing reads a background process's pipes), or stdin {pipe = true} "
                       "(written once with p:feed)");
        pr->s[1].mode = pr->s[2].mode = 0;
    }
    pr->p.timeout = opt_number(L, opts, "timeout", 0);
    pr->p.grace = opt_number(L, opts, "kill_grace", 5);

    int rc = proc_spawn(&pr->p, &spec);
    if (rc != 0) {
        push_cmdline(L, argv);
        luaL_error(L, "%s: cannot execute: %s%s", lua_tostring(L, -1), strerror(rc),
                   exec_hint(argv[0], rc));
    }
    for (int i = 1; i <= 2; i++) /* the child has its own copies now */
        if (pr->s[i].file_fd >= 0) {
            close(pr->s[i].file_fd);
            pr->s[i].file_fd = -1;
        }
    if (pr->in_fd >= 0) {
        close(pr->in_fd);
        pr->in_fd = -1;
    }
    return pr;
}

/* Pushes {code= | signal=, ok=} of a reaped child; {unknown=why, ok=false} for one whose
   status another wait took (lost). */
static void push_status(lua_State *L, const Proc *p)
{
    int st = p->status;
    if (p->lost) {
        lua_pushliteral(L, "its exit status was collected by another wait (waitpid: ECHILD)");
        lua_setfield(L, -2, "unknown");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "ok");
        return;
    }
    if (WIFEXITED(st)) {
        lua_pushinteger(L, WEXITSTATUS(st));
        lua_setfield(L, -2, "code");
    } else if (WIFSIGNALED(st)) {
        lua_pushinteger(L, WTERMSIG(st));
        lua_setfield(L, -2, "signal");
    }
    lua_pushboolean(L, WIFEXITED(st) && WEXITSTATUS(st) == 0 && !p->timed_out);
    lua_setfield(L, -2, "ok");
}

/* proc.run(argv [, opts]) -> {code=, signal=, stdout=, stderr=, timed_out=, elapsed=, ok=} */
static int l_run(lua_State *L)
{
    Process *pr = start(L, 0);
    const char *argv0 = pr->argv0;
    int rc = proc_wait(&pr->p, sink, pr, &llmd_interrupted);
    if (pr->failed == 1)
        return lua_error(L);     /* a line callback's error; __gc kills the group */
    for (int i = 1; i <= 2; i++) /* a last line without a newline */
        if (pr->s[i].mode == 'l' && pr->s[i].buf.n > 0 && !pr->failed) {
            call_line(pr, &pr->s[i], pr->s[i].buf.p, pr->s[i].buf.n);
            if (pr->failed == 1)
                return lua_error(L);
        }
    if (pr->failed == 2)
        return luaL_error(L, "proc.run: not enough memory for the output of '%s'", argv0);
    if (rc != 0)
        return luaL_error(L, "proc.run: %s: %s", argv0, strerror(rc));
    if (pr->p.interrupted) {
        llmd_interrupted = 1;
        (void)llmd_interrupt_pending(L); /* this error is the signal's: no second one on return */
        return luaL_error(L, "interrupted");
    }

    lua_createtable(L, 0, 9); /* ..., process, result */
    push_status(L, &pr->p);
    for (int i = 1; i <= 2; i++) {
        if (pr->s[i].mode != 'c')
            continue;
        lua_pushlstring(L, pr->s[i].buf.p ? pr->s[i].buf.p : "", pr->s[i].buf.n);
        lua_setfield(L, -2, i == 1 ? "stdout" : "stderr");
    }
    lua_pushboolean(L, pr->p.timed_out);
    lua_setfield(L, -2, "timed_out");
    lua_pushnumber(L, pr->p.elapsed);
    lua_setfield(L, -2, "elapsed");
    lua_pushinteger(L, (lua_Integer)pr->p.pid);
    lua_setfield(L, -2, "pid");
    process_free(pr);
    return 1;
}

/*
** proc.spawn(argv [, opts]) -> a process running in the background, in its own process
** group: p:pid(), p:poll() (nil while it runs, else {code= | signal=, ok=}, or
** {unknown=why, ok=false} when another wait took its status), p:wait([timeout]) (the same,
** nil on timeout), p:kill([grace]) (SIGTERM to the group, SIGKILL after grace seconds, then
** reaped; one gone already is left alone), p:feed(data) (its input, with stdin = {pipe =
** true}: written once, then closed). Garbage collection kills it too.
*/
static int l_spawn(lua_State *L)
{
    start(L, 1);
    lua_pushvalue(L, 4); /* the process userdata (see start) */
    return 1;
}

static Process *check_process(lua_State *L)
{
    return (Process *)luaL_checkudata(L, 1, PROCESS_MT);
}

/* Reaps the child if it has exited; 1 when it is gone (reaped, or lost: another wait took it,
   p:wait and p:poll then say its status is unknown rather than wait for ever). */
static int try_reap(Process *pr)
{
    if (pr->p.reaped)
        return 1;
    if (!proc_poll(&pr->p))
        return 0;
    if (!pr->p.lost)               /* (a lost child's pid, and group id, may be reused) */
        kill(-pr->p.pid, SIGKILL); /* whatever it left in its group */
    return 1;
}

static int status_or_nil(lua_State *L, Process *pr)
{
    if (!pr->p.reaped) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 3);
    push_status(L, &pr->p);
    return 1;
}

static int l_process_pid(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_process(L)->p.pid);
    return 1;
}

static int l_process_poll(lua_State *L)
{
    Process *pr = check_process(L);
    try_reap(pr);
    return status_or_nil(L, pr);
}

static void sleep_short(void)
{
    struct timespec ts = {0, 10000000L};
    nanosleep(&ts, NULL);
}

/*
** A descriptor that becomes readable when pid exits (Linux 5.3+: pidfd_open), or -1: a
** wait then wakes at the exit instead of at the next 10 ms tick (a comparison waits for
** its second reader so).
*/
static int exit_fd(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

static int l_process_wait(lua_State *L)
{
    Process *pr = check_process(L);
    double timeout = luaL_optnumber(L, 2, -1);
    double t0 = proc_now();
    int fd = pr->p.reaped || pr->p.pid <= 0 ? -1 : exit_fd(pr->p.pid);
    while (!try_reap(pr) && !llmd_interrupted) {
        double left = timeout >= 0 ? timeout - (proc_now() - t0) : 1.0;
        if (left <= 0)
            break;
        if (fd >= 0) { /* at most 100 ms at a time: Ctrl-C is looked at between (poll: EINTR) */
            struct pollfd pfd = {fd, POLLIN, 0};
            (void)poll(&pfd, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100);
        } else {
            sleep_short();
        }
    }
    if (fd >= 0)
        close(fd);
    if (llmd_interrupted && !pr->p.reaped) {
        /* this error is the signal's: the hook on_signal set would raise it again as the
           pcall that catches this one returns, outside it (a Ctrl-C while compare.lua
           waited for a copy left its workspace behind) */
        (void)llmd_interrupt_pending(L);
        return luaL_error(L, "interrupted");
    }
    return status_or_nil(L, pr);
}

/*
** p:feed(data [, timeout [, more]]) -> true once data is written to the input of a process
** spawned with stdin = {pipe = true} and that input closed (the child reads data, then its
** end); with more true the input stays open for the next p:feed (one gnuplot given chart
** after chart as each is known). false and why where the child closed its end first (it
** ended: p:wait says how) or the child read none of what was left for timeout seconds
** (default 60; the input is closed all the same, more or not). A process whose input is
** closed raises. Ctrl-C raises "interrupted", as p:wait does. (A child started early,
** beside other work, is given its commands so.)
*/
static int l_process_feed(lua_State *L)
{
    Process *pr = check_process(L);
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    double timeout = luaL_optnumber(L, 3, 60);
    int more = lua_toboolean(L, 4);
    if (pr->p.in < 0)
        return luaL_error(L, "p:feed: the process's input is not open (spawn it with stdin = "
                             "{pipe = true}; the last p:feed, without more, closed it)");
    size_t off = 0;
    double t0 = proc_now();
    const char *why = NULL;
    while (off < len && !llmd_interrupted) {
        ssize_t w = write(pr->p.in, data + off, len - off);
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            double left = timeout - (proc_now() - t0);
            if (left <= 0) {
                why = "timed out";
                break;
            }
            struct pollfd pfd = {pr->p.in, POLLOUT, 0}; /* (Ctrl-C looked at between) */
            (void)poll(&pfd, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100);
            continue;
        }
        why = w < 0 ? strerror(errno) : "nothing written";
        break;
    }
    if (!more || why != NULL || llmd_interrupted) {
        close(pr->p.in);
        pr->p.in = -1;
    }
    if (llmd_interrupted) {
        (void)llmd_interrupt_pending(L); /* (see p:wait) */
        return luaL_error(L, "interrupted");
    }
    if (why != NULL) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, why);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_process_kill(lua_State *L)
{
    Process *pr = check_process(L);
    double grace = luaL_optnumber(L, 2, pr->p.grace);
    /* one gone already is left alone (proc_kill): its pid and group id may be reused */
    if (!try_reap(pr))
        proc_kill(&pr->p, grace);
    return status_or_nil(L, pr);
}

/* proc.which(name) -> absolute path, or nil when not found in PATH. */
static int l_which(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    char path[4096];
    if (strchr(name, '/') != NULL || proc_resolve(name, NULL, path, sizeof path) != 0)
        lua_pushnil(L);
    else
        lua_pushstring(L, path);
    return 1;
}

/*
** proc.realpath(path) -> the absolute path with every link resolved (realpath(3), as
** `realpath -e`: every part must exist), or nil and why. No process started: a
** comparison resolves a few paths before its readers can start.
*/
static int l_realpath(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char *real = realpath(path, NULL);
    if (real == NULL) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushstring(L, real);
    free(real);
    return 1;
}

/*
** proc.file_id(path) -> a string that changes when the file does (device, inode, size,
** modification and status-change times to the nanosecond; links followed), or nil and
** why: a file read in one place and copied afterwards is checked to be the same file.
*/
static int l_file_id(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct stat st;
    if (stat(path, &st) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    char id[160];
    (void)snprintf(id, sizeof id, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld",
                   (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                   (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                   (long long)st.st_ctim.tv_sec, (long)st.st_ctim.tv_nsec);
    lua_pushstring(L, id);
    return 1;
}

/*
** proc.truncate(path, size) -> true, or nil and why: a file cut back to size bytes (truncate(2)).
** An append that failed part-way (a full disk) is undone, so the file keeps only whole lines
** and later readers do not stop on the half one (audit48 S7).
*/
static int l_truncate(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer size = luaL_checkinteger(L, 2);
    luaL_argcheck(L, size >= 0, 2, "a size >= 0");
    if (truncate(path, (off_t)size) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* The mode at idx in octal digits, as chmod's ("755", "0644"); nothing else is accepted. */
static unsigned long check_mode(lua_State *L, int idx)
{
    const char *mode = luaL_checkstring(L, idx);
    char *end = NULL;
    unsigned long m = strtoul(mode, &end, 8);
    luaL_argcheck(L, *mode >= '0' && *mode <= '7' && end != NULL && *end == '\0' && m <= 07777, idx,
                  "expected a mode in octal digits, as 755");
    return m;
}

/*
** proc.write_file(path, text [, mode]): text as the file's whole content, atomically, as
** json.write writes (llmd_write_atomic: a temporary file in path's folder, fsync, rename,
** mode 0644 or the one given in octal digits - "755" for a script -, the folder synced):
** readers see the old file or the new one, never a part, a crash right after leaves the
** new one, and a failure (a full disk, no folder, no permission) raises naming the file and
** leaves the old one as it was (newuser50b F12: CSV, YAML and Markdown a script writes).
*/
static int l_write_file(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (lua_type(L, 2) != LUA_TSTRING)
        return luaL_error(L, "proc.write_file: text: expected a string, got %s",
                          luaL_typename(L, 2));
    size_t n;
    const char *text = lua_tolstring(L, 2, &n);
    if (lua_gettop(L) > 3)
        return luaL_error(L, "proc.write_file: takes a path, a text and a mode, got %d arguments",
                          lua_gettop(L));
    unsigned long mode = lua_isnoneornil(L, 3) ? 0644 : check_mode(L, 3);
    int err = llmd_write_atomic_mode(path, text, n, (unsigned)mode);
    if (err != 0)
        return luaL_error(L, "%s: cannot write: %s", path, strerror(err));
    return 0;
}

/*
** proc.fsync(path) -> true, or nil and why: the file's (or the folder's: its entries, as a
** rename left them) data on the disk, so that a crash after it keeps them.
*/
static int l_fsync(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int err = llmd_fsync_path(path);
    if (err != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(err));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/*
** proc.disk_free(path) -> the bytes an unprivileged writer may still put on the filesystem
** holding path (statvfs: f_bavail blocks of f_frsize), and the files it may still make there
** (f_favail inodes; nil where the filesystem counts none, f_files 0, as Btrfs), or nil and
** why: a workspace is checked to have room for the results it copies before it is made, and
** a copy refused with bytes free is said to have run out of inodes (newuser47b E5).
*/
static int l_disk_free(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    struct statvfs sv;
    if (statvfs(path, &sv) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    unsigned long long frsize = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
    unsigned long long max = (unsigned long long)LUA_MAXINTEGER / (frsize ? frsize : 1);
    lua_pushinteger(L, (unsigned long long)sv.f_bavail > max
                           ? LUA_MAXINTEGER
                           : (lua_Integer)((unsigned long long)sv.f_bavail * frsize));
    if (sv.f_files == 0) {
        lua_pushnil(L);
    } else {
        lua_pushinteger(L, (unsigned long long)sv.f_favail > (unsigned long long)LUA_MAXINTEGER
                               ? LUA_MAXINTEGER
                               : (lua_Integer)sv.f_favail);
    }
    return 2;
}

/*
** proc.chmod(path, mode) -> true, or nil and why; mode in octal digits, as chmod's
** ("755", "0644"): nothing else is accepted.
*/
static int l_chmod(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    unsigned long m = check_mode(L, 2);
    if (chmod(path, (mode_t)m) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/*
** proc.unlink_stale(path) -> true when the lock file path held no lock and was removed,
** false when a process holds it (or it is gone, or no regular file), or nil and why
** (llmd_remove_stale_lock).
*/
static int l_unlink_stale(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char err[512];
    int r = llmd_remove_stale_lock(path, err, sizeof err);
    if (r < 0) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushboolean(L, r);
    return 1;
}

/*
** proc.lock(path, text) -> true once this process holds path's lock (for the rest of its
** life; the file then holds text), or false and what the file says (its holder) when another
** process holds it, or nil and why (llmd_lock_file).
*/
static int l_lock(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    char holder[1024], err[512];
    int r = llmd_lock_file(path, text, len, holder, sizeof holder, err, sizeof err);
    if (r == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    if (r == 1) {
        lua_pushboolean(L, 0);
        lua_pushstring(L, holder);
        return 2;
    }
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
}

/*
** proc.mkdir_marked(path, name, text) -> true, or nil, why and "exists" when path is there
** already: makes the folder path and in it the file name holding text, in one call. A
** Ctrl-C is raised at the next Lua instruction, never inside C, so the folder is never seen
** without its file (a workspace made without its INCOMPLETE marker would pass for a whole
** one). A failure after the folder was made removes it again.
*/
static int l_mkdir_marked(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *name = luaL_checkstring(L, 2);
    size_t len;
    const char *text = luaL_checklstring(L, 3, &len);
    luaL_argcheck(L, *name != '\0' && strchr(name, '/') == NULL, 2, "expected a file name");
    if (mkdir(path, 0777) != 0) {
        int e = errno;
        lua_pushnil(L);
        lua_pushstring(L, strerror(e));
        if (e == EEXIST)
            lua_pushliteral(L, "exists");
        else
            lua_pushnil(L);
        return 3;
    }
    const char *file = lua_pushfstring(L, "%s/%s", path, name);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    int e = fd < 0 ? errno : 0;
    size_t done = 0;
    while (e == 0 && done < len) {
        ssize_t w = write(fd, text + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            e = w < 0 ? errno : EIO;
        else
            done += (size_t)w;
    }
    if (fd >= 0 && close(fd) != 0 && e == 0)
        e = errno;
    if (e != 0) {
        if (fd >= 0)
            (void)unlink(file);
        (void)rmdir(path);
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", file, strerror(e));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/*
** proc.port_free(port) -> true, or false and the reason ("Address already in use") when
** a server could not listen on that TCP port now (see proc_port_check).
*/
static int l_port_free(lua_State *L)
{
    lua_Integer port = luaL_checkinteger(L, 1);
    luaL_argcheck(L, port >= 1 && port <= 65535, 1, "port must be in [1, 65535]");
    int rc = proc_port_check((int)port);
    lua_pushboolean(L, rc == 0);
    if (rc == 0)
        return 1;
    lua_pushstring(L, strerror(rc));
    return 2;
}

/* proc.free_port() -> a TCP port nothing listens on now, chosen by the system. */
static int l_free_port(lua_State *L)
{
    int port = proc_free_port();
    if (port <= 0)
        return luaL_error(L, "proc.free_port: %s", strerror(-port));
    lua_pushinteger(L, port);
    return 1;
}

/*
** proc.copy_file(from, to [, first]) -> bytes, how: copies a regular file into a new
** file (never over an existing one) by reflink, copy_file_range or read/write (how
** says which); first ("reflink", the default, "copy_file_range" or "read") is where
** to start, so that tests reach the fallbacks. Raises naming both paths; nothing is
** left at to after a failure. A FIFO or a device is refused at once (never waited on).
*/
static int l_copy_file(lua_State *L)
{
    const char *from = luaL_checkstring(L, 1);
    const char *to = luaL_checkstring(L, 2);
    static const char *const firsts[] = {"reflink", "copy_file_range", "read", NULL};
    int first = luaL_checkoption(L, 3, "reflink", firsts);
    unsigned long long copied;
    const char *how;
    char err[8192];
    if (llmd_copy_file(from, to, first, &copied, &how, err, sizeof err) != 0) {
        (void)llmd_interrupt_pending(L); /* an "interrupted" copy took the signal */
        return luaL_error(L, "%s", err);
    }
    lua_pushinteger(L, (lua_Integer)copied);
    lua_pushstring(L, how);
    return 2;
}

/* proc.now(): seconds on the monotonic clock (for durations: its origin means nothing) */
static int l_now(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)proc_now());
    return 1;
}

/* proc.utc(): the wall clock (CLOCK_REALTIME) as two integers, seconds since 1970 UTC and
   nanoseconds into that second: a time stamp finer than os.time()'s second */
static int l_utc(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lua_pushinteger(L, (lua_Integer)ts.tv_sec);
    lua_pushinteger(L, (lua_Integer)ts.tv_nsec);
    return 2;
}

/* proc.cpu(): user and system CPU seconds this process has used so far */
static int l_cpu(lua_State *L)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return luaL_error(L, "getrusage: %s", strerror(errno));
    lua_pushnumber(L, (lua_Number)ru.ru_utime.tv_sec + (lua_Number)ru.ru_utime.tv_usec / 1e6);
    lua_pushnumber(L, (lua_Number)ru.ru_stime.tv_sec + (lua_Number)ru.ru_stime.tv_usec / 1e6);
    return 2;
}

/*
** proc.take_interrupt() -> true when a Ctrl-C (SIGINT/SIGTERM) came that no error has
** raised yet, which it then never raises: for the clean-up after a failure, which must not
** be cut short by the signal that caused it (an error that ended in C, a write that said
** EINTR, leaves the signal pending, raised at the clean-up's next Lua call).
*/
static int l_take_interrupt(lua_State *L)
{
    lua_pushboolean(L, llmd_interrupt_pending(L));
    return 1;
}

/*
** proc.cleanup(fn, ...) -> fn(...)'s results: runs fn with commands allowed again after a
** Ctrl-C (SIGINT/SIGTERM). After one, every proc.run is stopped at once (llmd_interrupted
** stays set), so the clean-up that must follow it - a namespace lock's release - could run
** no command. Inside fn a pending signal is taken (as take_interrupt) and the flag is clear;
** a new signal during fn stops it as usual. The flag is set again afterwards (the process
** still ends as interrupted); fn's error is raised again.
*/
static int l_cleanup(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    (void)llmd_interrupt_pending(L);
    sig_atomic_t was = llmd_interrupted;
    sig_atomic_t signals = llmd_signals;
    llmd_interrupted = 0;
    int st = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (was || llmd_signals != signals)
        llmd_interrupted = 1;
    if (st != LUA_OK)
        return lua_error(L);
    return lua_gettop(L);
}

static const luaL_Reg proc_funcs[] = {
    {"take_interrupt", l_take_interrupt},
    {"cleanup",        l_cleanup       },
    {"chmod",          l_chmod         },
    {"mkdir_marked",   l_mkdir_marked  },
    {"lock",           l_lock          },
    {"unlink_stale",   l_unlink_stale  },
    {"copy_file",      l_copy_file     },
    {"cpu",            l_cpu           },
    {"file_id",        l_file_id       },
    {"disk_free",      l_disk_free     },
    {"truncate",       l_truncate      },
    {"write_file",     l_write_file    },
    {"fsync",          l_fsync         },
    {"now",            l_now           },
    {"utc",            l_utc           },
    {"run",            l_run           },
    {"spawn",          l_spawn         },
    {"which",          l_which         },
    {"port_free",      l_port_free     },
    {"realpath",       l_realpath      },
    {"free_port",      l_free_port     },
    {NULL,             NULL            }
};

int luaopen_llmd_proc(lua_State *L)
{
    luaL_newmetatable(L, PROCESS_MT); /* mt */
    lua_pushcfunction(L, process_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, process_gc);
    lua_setfield(L, -2, "__close");
    static const luaL_Reg methods[] = {
        {"pid",  l_process_pid },
        {"poll", l_process_poll},
        {"wait", l_process_wait},
        {"kill", l_process_kill},
        {"feed", l_process_feed},
        {NULL,   NULL          }
    };
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_newlib(L, proc_funcs);
    return 1;
}
