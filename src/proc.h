/*
** proc.h — Lua-free child processes: spawn without a shell, drain stdout and stderr
** concurrently, feed stdin, enforce a timeout on the whole process group.
**
**   Proc p;
**   proc_init(&p);
**   if (proc_spawn(&p, &spec, err, sizeof err) != 0) ... err says why
**   proc_wait(&p, sink, ud, &cancel_flag);
**   ... p.exited, p.status, p.timed_out, p.elapsed
**   proc_release(&p);
*/
#ifndef LLMD_PROC_H
#define LLMD_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

typedef enum ProcStdio {
    PROC_NULL,    /* /dev/null */
    PROC_INHERIT, /* the parent's own */
    PROC_PIPE,    /* a pipe: data to write (stdin) or read through the sink */
    PROC_FD,      /* an open file descriptor of the caller's (not closed by proc) */
    PROC_STDOUT,  /* stderr only: the same as stdout */
} ProcStdio;

typedef struct ProcSpec {
    const char *const *argv; /* argv[0] is looked up in PATH when it has no '/' */
    const char *const *envp; /* NULL: the parent's environment */
    const char *cwd;         /* NULL: the parent's */
    ProcStdio in, out, err;
    int in_fd, out_fd, err_fd; /* for PROC_FD */
} ProcSpec;

typedef struct Proc {
    pid_t pid;              /* also the process group id; 0 before spawn */
    int in, out, err;       /* the parent's pipe ends, -1 once closed */
    const char *stdin_data; /* written to the stdin pipe; must outlive proc_wait */
    int keep_in;            /* the stdin pipe is the caller's to write and close (none: closed) */
    size_t stdin_len, stdin_off;
    double timeout; /* seconds; <= 0 for none */
    double grace;   /* seconds between SIGTERM and SIGKILL */
    double start, elapsed;
    int reaped; /* the child is gone: our waitpid collected it, or (lost) another's */
    int status; /* its wait status, once reaped by our waitpid (not when lost) */
    int lost;   /* reaped, but someone else's wait took it (waitpid: ECHILD): no status */
    int timed_out, interrupted;
    int stop; /* set by the caller (a callback failed): the run ends like a timed-out one */
} Proc;

/* Called with each chunk read from stream 1 (stdout) or 2 (stderr). */
typedef void (*ProcSink)(void *ud, int stream, const char *buf, size_t n);

void proc_init(Proc *p);

/*
** Resolves a program name the way execvp would, with PATH taken from envp when it
** has one. Writes the path to out; returns 0 or an errno value.
*/
int proc_resolve(const char *name, const char *const *envp, char *out, size_t size);

/* Starts the child in a new process group. Returns 0, or an errno value. */
int proc_spawn(Proc *p, const ProcSpec *spec);

/*
** Runs until the child has exited and its pipes are closed, passing output to sink.
** On timeout, or when *cancel becomes non-zero, sends SIGTERM to the process group,
** then SIGKILL after the grace period. Returns 0, or an errno value for a failure of
** the loop itself.
*/
int proc_wait(Proc *p, ProcSink sink, void *ud, const volatile sig_atomic_t *cancel);

/*
** Records p's child as reaped by the caller's own waitpid (status: its wait status), so that
** proc_reap_orphans no longer keeps its pid from the orphans it reaps.
*/
void proc_reaped(Proc *p, int status);

/*
** Reaps p's child if it has ended, without blocking; 1 once it is gone (reaped now or
** before). A child some other wait collected (waitpid: ECHILD) is gone with p->lost set:
** its status is unknown, never taken for an exit 0.
*/
int proc_poll(Proc *p);

/*
** Ends p's child: SIGTERM to its group, SIGKILL after grace seconds, the child reaped, then
** its group's zombies (orphans reparented to us) for up to 2 s. A Proc reaped before the call
** is left alone: its pid, and so its group's id, may be another process's by now.
*/
void proc_kill(Proc *p, double grace);

/*
** Reaps the zombies among this process's children that no Proc waits for: the orphans of
** children proc_spawn started (llmdlua is a subreaper, so a grandchild still running when its
** parent exited, or one that left the group with setsid, is reparented to it), never a child
** a Proc has not reaped yet, nor one in this process's own process group (io.popen's,
** system's: their callers wait for them). proc_spawn and every reap call it, so a long script
** keeps no zombie past its next process call. Single-threaded callers (the tracked pids are
** locked, the wait is not).
*/
void proc_reap_orphans(void);

/* Kills the process group (if the child was not reaped yet), reaps it, closes pipes.
   Safe to call more than once. */
void proc_release(Proc *p);

double proc_now(void);

/*
** Whether a server could listen on TCP port (1..65535) now: bind tests on the IPv4 and
** IPv6 wildcard addresses with SO_REUSEADDR, as servers bind. Returns 0 when the port is
** free, EADDRINUSE when something listens on it (on any address), another errno value when
** the test itself failed (EACCES for a privileged port).
*/
int proc_port_check(int port);

/* A TCP port free now, chosen by the system (a bind to port 0); -errno on failure. */
int proc_free_port(void);

#endif
