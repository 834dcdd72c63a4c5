/*
** test_proc.c — spawning, concurrent draining, stdin, timeouts that take the whole
** process group down, commands that cannot start, port checks. Expected values are the
** known behaviour of the POSIX tools run (sh, cat, head, sleep) and of the socket API
** (a listening socket makes bind on its port fail with EADDRINUSE).
*/
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "testhelp.h"

typedef struct Out {
    size_t n[3];
    char head[3][256];
} Out;

static void collect(void *ud, int stream, const char *buf, size_t n)
{
    Out *o = (Out *)ud;
    size_t have = o->n[stream];
    if (have < sizeof o->head[0] - 1) {
        size_t k = n < sizeof o->head[0] - 1 - have ? n : sizeof o->head[0] - 1 - have;
        memcpy(o->head[stream] + have, buf, k);
        o->head[stream][have + k] = '\0';
    }
    o->n[stream] += n;
}

static int run(Proc *p, const char *const *argv, Out *o, double timeout)
{
    ProcSpec s;
    memset(&s, 0, sizeof s);
    s.argv = argv;
    s.in = p->stdin_data ? PROC_PIPE : PROC_NULL;
    s.out = PROC_PIPE;
    s.err = PROC_PIPE;
    p->timeout = timeout;
    memset(o, 0, sizeof *o);
    int rc = proc_spawn(p, &s);
    if (rc != 0)
        return rc;
    return proc_wait(p, collect, o, NULL);
}

/* A socket listening on addr:port (host order), or -1. */
static int listen_on(uint32_t addr, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(addr);
    a.sin_port = htons((uint16_t)port);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* How many of this process's children are zombies now (each /proc/PID/stat: state Z, parent
   us): counted from /proc, independently of proc.c's own walk of /proc/self/task. */
static int zombie_children(void)
{
    int n = 0;
    DIR *d = opendir("/proc");
    if (d == NULL)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t k = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[k] = '\0';
        char *rest = strrchr(buf, ')');
        char state;
        int ppid;
        if (rest != NULL && sscanf(rest + 1, " %c %d", &state, &ppid) == 2 && state == 'Z' &&
            ppid == (int)getpid())
            n++;
    }
    closedir(d);
    return n;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int main(void)
{
    Proc p;
    Out o;

    TEST("exit code and both streams are captured")
    {
        const char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
        proc_init(&p);
        CHECK(run(&p, argv, &o, 0) == 0);
        CHECK(p.reaped && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 3);
        CHECK_STR(o.head[1], "out\n");
        CHECK_STR(o.head[2], "err\n");
        proc_release(&p);
    }

    TEST("50 MB on stdout and on stderr at once does not deadlock")
    {
        const char *argv[] = {
            "sh", "-c", "head -c 50000000 /dev/zero >&2 & head -c 50000000 /dev/zero; wait", NULL};
        proc_init(&p);
        CHECK(run(&p, argv, &o, 60) == 0);
        CHECK(!p.timed_out);
        CHECK(o.n[1] == 50000000 && o.n[2] == 50000000);
        proc_release(&p);
    }

    TEST("stdin larger than a pipe buffer is fed while output is read")
    {
        size_t n = 4 << 20;
        char *data = malloc(n);
        for (size_t i = 0; i < n; i++)
            data[i] = (char)('a' + i % 26);
        const char *argv[] = {"cat", NULL};
        proc_init(&p);
        p.stdin_data = data;
        p.stdin_len = n;
        CHECK(run(&p, argv, &o, 60) == 0);
        CHECK(o.n[1] == n && strncmp(o.head[1], "abcdefghijklmnopqrstuvwxyzabc", 29) == 0);
        proc_release(&p);
        free(data);
    }

    TEST("a timeout terminates the whole process group, grandchildren included")
    {
        const char *argv[] = {"sh", "-c", "sleep 30 & sleep 30 & echo started; wait", NULL};
        proc_init(&p);
        p.grace = 1;
        double t0 = proc_now();
        CHECK(run(&p, argv, &o, 0.5) == 0);
        double took = proc_now() - t0;
        CHECK(p.timed_out);
        CHECK(WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGTERM);
        CHECK(took >= 0.5 && took < 5);
        CHECK_STR(o.head[1], "started\n");
        /* no process is left in the group */
        CHECK(kill(-p.pid, 0) != 0 && errno == ESRCH);
        proc_release(&p);
    }

    TEST("a child that ignores SIGTERM is killed after the grace period")
    {
        const char *argv[] = {"sh", "-c", "trap '' TERM; sleep 30 & wait; sleep 30", NULL};
        proc_init(&p);
        p.grace = 0.3;
        CHECK(run(&p, argv, &o, 0.3) == 0);
        CHECK(p.timed_out && WIFSIGNALED(p.status));
        CHECK(kill(-p.pid, 0) != 0 && errno == ESRCH);
        proc_release(&p);
    }

    TEST("a missing program is ENOENT; a non-executable file EACCES")
    {
        char out[256];
        CHECK(proc_resolve("no-such-program-llmdlua", NULL, out, sizeof out) == ENOENT);
        CHECK(proc_resolve("sh", NULL, out, sizeof out) == 0 && strstr(out, "/sh") != NULL);
        const char *env[] = {"PATH=/nonexistent", NULL};
        CHECK(proc_resolve("sh", env, out, sizeof out) == ENOENT);
        char plain[] = "/tmp/llmdlua-test-noexec-XXXXXX";
        int fd = mkstemp(plain); /* mode 0600: not executable */
        CHECK(fd >= 0);
        close(fd);
        const char *argv[] = {plain, NULL};
        proc_init(&p);
        CHECK(run(&p, argv, &o, 0) == EACCES);
        proc_release(&p);
        unlink(plain);
        const char *argv2[] = {"/no/such/file", NULL};
        proc_init(&p);
        CHECK(run(&p, argv2, &o, 0) == ENOENT);
        proc_release(&p);
    }

    TEST("release kills a child that is still running")
    {
        const char *argv[] = {"sleep", "30", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.argv = argv;
        proc_init(&p);
        CHECK(proc_spawn(&p, &s) == 0);
        pid_t pid = p.pid;
        proc_release(&p);
        CHECK(p.reaped && WIFSIGNALED(p.status) && WTERMSIG(p.status) == SIGKILL);
        CHECK(kill(pid, 0) != 0);
    }

    /* A caller whose stdin was closed: the file it opens for the child's stderr takes
       descriptor 0, which the child's own stdin (/dev/null) replaces before stderr is
       dup'ed from it; the child's message went to a read-only /dev/null (session 44). */
    TEST("a child's stderr file given as descriptor 0 reaches the child")
    {
        char path[] = "/tmp/llmdlua-test-fd0-XXXXXX";
        int keep = dup(0);
        CHECK(keep >= 0);
        close(0);
        int fd = mkstemp(path); /* the lowest free descriptor: 0 */
        CHECK(fd == 0);
        const char *argv[] = {"sh", "-c", "echo to-stderr >&2", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.argv = argv;
        s.in = PROC_NULL;
        s.out = PROC_NULL;
        s.err = PROC_FD;
        s.err_fd = fd;
        proc_init(&p);
        CHECK(proc_spawn(&p, &s) == 0);
        CHECK(proc_wait(&p, NULL, NULL, NULL) == 0);
        CHECK(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
        proc_release(&p);
        char got[64] = {0};
        CHECK(pread(fd, got, sizeof got - 1, 0) == 10);
        CHECK_STR(got, "to-stderr\n");
        close(fd);
        unlink(path);
        CHECK(dup2(keep, 0) == 0); /* the test's own stdin back */
        close(keep);
    }

    TEST("a port with a listener on 127.0.0.1 or on the wildcard address is in use")
    {
        int port = proc_free_port();
        CHECK(port > 0 && port <= 65535);
        CHECK(proc_port_check(port) == 0);
        for (int any = 0; any <= 1; any++) {
            int fd = listen_on(any ? INADDR_ANY : INADDR_LOOPBACK, port);
            CHECK(fd >= 0);
            CHECK(proc_port_check(port) == EADDRINUSE);
            close(fd);
            CHECK(proc_port_check(port) == 0); /* closed: free again */
        }
        CHECK(proc_port_check(0) == EINVAL);
        CHECK(proc_port_check(65536) == EINVAL);
    }

    TEST("orphans a child leaves (in its group, or out of it: setsid) are reaped, never a child "
         "still waited for")
    {
        /* the child exits at once; its two sleeps (their output not the pipes proc_wait waits
           on) end 0.2 s later as llmdlua's children (a subreaper): one still in the child's
           group, one in a session of its own */
        const char *argv[] = {"sh", "-c",
                              "exec >/dev/null 2>&1; sleep 0.2 & setsid sleep 0.2 & exit 0", NULL};
        proc_init(&p);
        CHECK(run(&p, argv, &o, 10) == 0);
        CHECK(p.reaped && WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0);
        proc_release(&p);
        /* a child spawned and not waited for yet, which ends meanwhile: exit 7 */
        Proc q;
        proc_init(&q);
        const char *seven[] = {"sh", "-c", "exit 7", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.argv = seven;
        s.in = s.out = s.err = PROC_NULL;
        CHECK(proc_spawn(&q, &s) == 0);
        sleep_s(0.6);
        CHECK(zombie_children() == 3); /* the two orphans and q, all ended (counted by /proc) */
        proc_reap_orphans();
        CHECK(zombie_children() == 1); /* q alone: its wait reads its status */
        CHECK(proc_wait(&q, NULL, NULL, NULL) == 0);
        CHECK(q.reaped && WIFEXITED(q.status) && WEXITSTATUS(q.status) == 7);
        proc_release(&q);
        CHECK(zombie_children() == 0);
    }

    /* waitpid(pid) answers ECHILD for a child another wait took: proc.c counted that as an
       exit 0 (a failed command read as a success), and lproc's p:wait kept polling for ever */
    TEST("a child another wait collected is gone with its status unknown, never an exit 0")
    {
        const char *three[] = {"sh", "-c", "exit 3", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.argv = three;
        s.in = s.out = s.err = PROC_NULL;
        for (int how = 0; how < 2; how++) { /* proc_wait's loop, then proc_poll's */
            proc_init(&p);
            CHECK(proc_spawn(&p, &s) == 0);
            int st = -1;
            CHECK(waitpid(p.pid, &st, 0) == p.pid); /* someone else's wait: exit 3 */
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
            double t0 = proc_now();
            if (how == 0) {
                CHECK(proc_wait(&p, NULL, NULL, NULL) == 0);
            } else {
                CHECK(proc_poll(&p) == 1);
                CHECK(proc_poll(&p) == 1); /* and again: still gone, still unknown */
            }
            CHECK(proc_now() - t0 < 2);
            CHECK(p.reaped && p.lost);
            proc_kill(&p, 0.1); /* gone: nothing to signal, returns at once */
            CHECK(p.reaped && p.lost && !p.timed_out);
            proc_release(&p);
        }
    }

    /* Every path that reaps for someone else - proc_spawn's orphan reap, another Proc's wait
       reaping its group and the orphans that left it, proc_kill's reap of a group's zombies -
       must leave a child a Proc still owns to that Proc's wait, ended or not. */
    TEST("no reap of others takes the status of a child a Proc still owns")
    {
        Proc q, r;
        const char *seven[] = {"sh", "-c", "exit 7", NULL};
        const char *nine[] = {"sh", "-c", "sleep 0.3; exit 9", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.in = s.out = s.err = PROC_NULL;
        s.argv = seven;
        proc_init(&q);
        CHECK(proc_spawn(&q, &s) == 0); /* ends at once: a zombie from here on */
        s.argv = nine;
        proc_init(&r);
        CHECK(proc_spawn(&r, &s) == 0); /* ends while the others below run */
        sleep_s(0.1);
        for (int i = 0; i < 4; i++) { /* each spawns (orphan reap), waits and reaps a group */
            const char *argv[] = {
                "sh", "-c", "exec >/dev/null 2>&1; sleep 0.1 & setsid sleep 0.1 & exit 0", NULL};
            proc_init(&p);
            CHECK(run(&p, argv, &o, 10) == 0);
            proc_release(&p);
            sleep_s(0.1);
        }
        const char *slow[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
        s.argv = slow;
        proc_init(&p);
        CHECK(proc_spawn(&p, &s) == 0);
        proc_kill(&p, 0.2); /* its group killed, the group's zombies reaped */
        CHECK(p.reaped && !p.lost && WIFSIGNALED(p.status));
        proc_release(&p);
        proc_reap_orphans();
        CHECK(proc_wait(&q, NULL, NULL, NULL) == 0);
        CHECK(q.reaped && !q.lost && WIFEXITED(q.status) && WEXITSTATUS(q.status) == 7);
        CHECK(proc_wait(&r, NULL, NULL, NULL) == 0);
        CHECK(r.reaped && !r.lost && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 9);
        proc_release(&q);
        proc_release(&r);
    }

    /* A Proc whose child was reaped long ago holds a pid the system may have given another
       process since - here, pretended: its pid set to a running child's - and p:kill on it
       (lproc) killed that group and reaped its children (waitpid(-pid)). */
    TEST("killing a Proc already reaped touches no other process, whatever its pid is now")
    {
        const char *argv[] = {"sh", "-c", "exit 0", NULL};
        proc_init(&p);
        CHECK(run(&p, argv, &o, 10) == 0);
        CHECK(p.reaped);
        Proc q;
        const char *sleeper[] = {"sleep", "30", NULL};
        ProcSpec s;
        memset(&s, 0, sizeof s);
        s.argv = sleeper;
        s.in = s.out = s.err = PROC_NULL;
        proc_init(&q);
        CHECK(proc_spawn(&q, &s) == 0);
        p.pid = q.pid; /* the pid reused */
        proc_kill(&p, 0.1);
        CHECK(kill(q.pid, 0) == 0); /* still running */
        CHECK(!proc_poll(&q));
        proc_release(&q);
        CHECK(q.reaped && !q.lost && WIFSIGNALED(q.status) && WTERMSIG(q.status) == SIGKILL);
    }

    TEST("a child of the caller's own process group (popen's) is left to its own wait")
    {
        FILE *f = popen("exit 5", "r");
        CHECK(f != NULL);
        sleep_s(0.3);
        proc_reap_orphans();
        int st = pclose(f);
        CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 5);
    }

    return test_report();
}
