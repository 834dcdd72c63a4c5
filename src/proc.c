/*
** proc.c — child processes, as declared in proc.h.
*/
/* pipe2 and posix_spawn_file_actions_addchdir_np are GNU extensions (glibc >= 2.29). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"

extern char **environ;

#define CHUNK 65536
#define STATUS_POLL_MS 20

double proc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void proc_init(Proc *p)
{
    memset(p, 0, sizeof *p);
    p->in = p->out = p->err = -1;
    p->grace = 5;
}

static const char *env_path(const char *const *envp)
{
    if (envp == NULL)
        return getenv("PATH");
    for (; *envp; envp++)
        if (strncmp(*envp, "PATH=", 5) == 0)
            return *envp + 5;
    return NULL;
}

int proc_resolve(const char *name, const char *const *envp, char *out, size_t size)
{
    if (name[0] == '\0')
        return ENOENT;
    if (strchr(name, '/') != NULL) {
        /* Checked here because posix_spawn may report a failed exec only as exit 127
           (as it does under valgrind), which would pass for the program's own exit. */
        if ((size_t)snprintf(out, size, "%s", name) >= size)
            return ENAMETOOLONG;
        struct stat st;
        if (stat(out, &st) != 0)
            return errno;
        if (!S_ISREG(st.st_mode) || access(out, X_OK) != 0)
            return EACCES;
        return 0;
    }
    const char *path = env_path(envp);
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    int found_no_exec = 0;
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        int n = len == 0 ? snprintf(out, size, "%s", name)
                         : snprintf(out, size, "%.*s/%s", (int)len, path, name);
        if (n > 0 && (size_t)n < size) {
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
                if (access(out, X_OK) == 0)
                    return 0;
                found_no_exec = 1;
            }
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return found_no_exec ? EACCES : ENOENT;
}

static int set_stdio(posix_spawn_file_actions_t *fa, ProcStdio how, int fd, int pipe_end,
                     int target)
{
    switch (how) {
    case PROC_NULL:
        return posix_spawn_file_actions_addopen(fa, target, "/dev/null",
                                                target == 0 ? O_RDONLY : O_WRONLY, 0);
    case PROC_PIPE:
        return posix_spawn_file_actions_adddup2(fa, pipe_end, target);
    case PROC_FD:
        return posix_spawn_file_actions_adddup2(fa, fd, target);
    case PROC_STDOUT:
        return posix_spawn_file_actions_adddup2(fa, 1, target);
    case PROC_INHERIT:
    default:
        return 0;
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/*
** *fd moved to a descriptor of 3 or more (close-on-exec) when it is 0, 1 or 2: the file
** actions set the child's 0, 1 and 2 in turn, and one of them would replace a later one's
** source (a stderr file that got descriptor 0 because stdin was closed would be dup'ed
** after stdin became /dev/null). owned: the original is closed (a pipe end of ours), else
** the copy is the caller's to close (*moved). 0 or an errno.
*/
static int lift_fd(int *fd, int owned, int *moved)
{
    if (*fd < 0 || *fd > 2)
        return 0;
    int n = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (n < 0)
        return errno;
    if (owned)
        close(*fd);
    else
        *moved = n;
    *fd = n;
    return 0;
}

/*
** The children proc_spawn started and no wait has reaped yet, by pid. llmdlua is a
** subreaper (proc_spawn), so a child's orphans - a grandchild left running in its group when
** the child exited, one that left the group (setsid: chromium's helpers, a daemonized server)
** - become llmdlua's children, and each is a zombie from its end until llmdlua reaps it.
** proc_reap_orphans reaps those, and never a child listed here, whose status its own wait
** reads (a p:wait after it would find ECHILD and an unknown status).
*/
static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *tracked;
static size_t n_tracked, cap_tracked;

static void track(pid_t pid)
{
    pthread_mutex_lock(&tracked_lock);
    if (n_tracked == cap_tracked) {
        size_t cap = cap_tracked ? cap_tracked * 2 : 16;
        pid_t *t = realloc(tracked, cap * sizeof *t);
        if (t == NULL) { /* untracked: an orphan reap could take it (its Proc: lost) */
            pthread_mutex_unlock(&tracked_lock);
            return;
        }
        tracked = t;
        cap_tracked = cap;
    }
    tracked[n_tracked++] = pid;
    pthread_mutex_unlock(&tracked_lock);
}

static void untrack(pid_t pid)
{
    pthread_mutex_lock(&tracked_lock);
    for (size_t i = 0; i < n_tracked; i++)
        if (tracked[i] == pid) {
            tracked[i] = tracked[--n_tracked];
            break;
        }
    pthread_mutex_unlock(&tracked_lock);
}

static int is_tracked(pid_t pid)
{
    int yes = 0;
    pthread_mutex_lock(&tracked_lock);
    for (size_t i = 0; i < n_tracked && !yes; i++)
        yes = tracked[i] == pid;
    pthread_mutex_unlock(&tracked_lock);
    return yes;
}

/* Reaps pid when it is a zombie that is an orphan: not tracked, and not in llmdlua's own
   process group (a child of Lua's io.popen or os.execute is, and its pclose reads its status). */
static void reap_if_orphan(pid_t pid, pid_t own_group)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    const char *rest = strrchr(buf, ')'); /* after the command's name, which may hold anything */
    char state = 0;
    int ppid = 0, group = 0;
    if (rest == NULL || sscanf(rest + 1, " %c %d %d", &state, &ppid, &group) != 3)
        return;
    if (state != 'Z' || ppid != (int)getpid() || group == (int)own_group || is_tracked(pid))
        return;
    int st;
    while (waitpid(pid, &st, WNOHANG) < 0 && errno == EINTR) {
    }
}

/* reap_if_orphan on every pid the file path lists ("1 2 3"); -1 when it cannot be read. */
static int reap_listed(const char *path, pid_t own_group)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    int pid;
    while (fscanf(f, "%d", &pid) == 1)
        reap_if_orphan((pid_t)pid, own_group);
    fclose(f);
    return 0;
}

void proc_reap_orphans(void)
{
    pid_t own_group = getpgrp();
    int listed = 0;
    /* every thread's children (a subreaper's orphans go to one of its threads) */
    DIR *d = opendir("/proc/self/task");
    if (d != NULL) {
        struct dirent *e;
        listed = 1;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            char path[300];
            snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
            if (reap_listed(path, own_group) != 0)
                listed = 0; /* a kernel without CONFIG_PROC_CHILDREN */
        }
        closedir(d);
    }
    if (listed)
        return;
    d = opendir("/proc"); /* every process, each checked for being our child */
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            reap_if_orphan((pid_t)atoi(e->d_name), own_group);
    closedir(d);
}

void proc_reaped(Proc *p, int status)
{
    p->reaped = 1;
    p->status = status;
    untrack(p->pid);
}

int proc_spawn(Proc *p, const ProcSpec *s)
{
    /* Orphaned grandchildren are reparented to us, so we can reap them and know when
       the whole group is gone, whatever PID 1 does with orphans. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L);
    proc_reap_orphans(); /* (those earlier children left, ended since) */
    char path[4096];
    int rc = proc_resolve(s->argv[0], s->envp, path, sizeof path);
    if (rc != 0)
        return rc;

    int pin[2] = {-1, -1}, pout[2] = {-1, -1}, perr[2] = {-1, -1};
    if ((s->in == PROC_PIPE && pipe2(pin, O_CLOEXEC) != 0) ||
        (s->out == PROC_PIPE && pipe2(pout, O_CLOEXEC) != 0) ||
        (s->err == PROC_PIPE && pipe2(perr, O_CLOEXEC) != 0)) {
        rc = errno;
        goto fail_pipes;
    }
    int in_fd = s->in_fd, out_fd = s->out_fd, err_fd = s->err_fd;
    int moved[3] = {-1, -1, -1}; /* copies of the caller's descriptors made here */
    for (int i = 0; i < 2 && rc == 0; i++) {
        rc = lift_fd(&pin[i], 1, NULL);
        if (rc == 0)
            rc = lift_fd(&pout[i], 1, NULL);
        if (rc == 0)
            rc = lift_fd(&perr[i], 1, NULL);
    }
    if (rc == 0 && s->in == PROC_FD)
        rc = lift_fd(&in_fd, 0, &moved[0]);
    if (rc == 0 && s->out == PROC_FD)
        rc = lift_fd(&out_fd, 0, &moved[1]);
    if (rc == 0 && s->err == PROC_FD)
        rc = lift_fd(&err_fd, 0, &moved[2]);
    if (rc != 0) {
        for (int i = 0; i < 3; i++)
            close_fd(&moved[i]);
        goto fail_pipes;
    }

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGQUIT);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGXFSZ);
    rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                             POSIX_SPAWN_SETSIGDEF);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&attr, 0);
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&attr, &defaults);
    if (rc == 0)
        rc = set_stdio(&fa, s->in, in_fd, pin[0], 0);
    if (rc == 0)
        rc = set_stdio(&fa, s->out, out_fd, pout[1], 1);
    if (rc == 0)
        rc = set_stdio(&fa, s->err, err_fd, perr[1], 2);
    if (rc == 0 && s->cwd != NULL)
        rc = posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
    pid_t pid = 0;
    if (rc == 0) {
        p->start = proc_now();
        /* posix_spawn's prototype predates const; it does not write to either array */
        char *const *argv = (char *const *)(uintptr_t)s->argv;
        char *const *envp = s->envp ? (char *const *)(uintptr_t)s->envp : environ;
        rc = posix_spawn(&pid, path, &fa, &attr, argv, envp);
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    for (int i = 0; i < 3; i++)
        close_fd(&moved[i]);
    if (rc != 0)
        goto fail_pipes;

    p->pid = pid;
    track(pid);
    close_fd(&pin[0]);
    close_fd(&pout[1]);
    close_fd(&perr[1]);
    p->in = pin[1];
    p->out = pout[0];
    p->err = perr[0];
    int fds[3] = {p->in, p->out, p->err};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
    if (p->in >= 0 && p->stdin_len == 0 && !p->keep_in)
        close_fd(&p->in);
    return 0;

fail_pipes:
    for (int i = 0; i < 2; i++) {
        close_fd(&pin[i]);
        close_fd(&pout[i]);
        close_fd(&perr[i]);
    }
    return rc;
}

/*
** Reaps the child and any of its group that were orphaned to us (we are a subreaper),
** so that no zombie keeps the group alive. Blocks for the child with flags == 0.
*/
static void try_reap(Proc *p, int flags)
{
    if (p->pid <= 0)
        return;
    int was = p->reaped;
    for (;;) {
        int status;
        pid_t r = waitpid(p->reaped ? -p->pid : p->pid, &status, p->reaped ? WNOHANG : flags);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == p->pid) {
            proc_reaped(p, status);
            flags = WNOHANG;
            continue; /* now the orphans */
        }
        if (r > 0)
            continue;
        if (r < 0 && errno == ECHILD && !p->reaped) {
            proc_reaped(p, 0); /* someone else's wait took it: gone, its status unknown */
            p->lost = 1;
        }
        if (p->reaped && !was)
            proc_reap_orphans(); /* those that left its group (setsid) */
        return;
    }
}

static void signal_group(Proc *p, int sig)
{
    if (p->pid > 0)
        kill(-p->pid, sig);
}

int proc_poll(Proc *p)
{
    if (!p->reaped)
        try_reap(p, WNOHANG);
    return p->reaped;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void proc_kill(Proc *p, double grace)
{
    if (p->pid <= 0 || proc_poll(p))
        return; /* gone before: the pid may be reused, its group another's */
    signal_group(p, SIGTERM);
    double t0 = proc_now();
    while (!proc_poll(p) && proc_now() - t0 < grace)
        sleep_ms(10);
    if (!p->reaped)
        p->timed_out = 1;
    pid_t group = p->pid;
    proc_release(p); /* SIGKILL to the group if still there, the child reaped */
    /* what was left in its group is ours now (a subreaper): killed, its zombies reaped */
    t0 = proc_now();
    while (proc_now() - t0 < 2.0) {
        int st;
        pid_t r = waitpid(-group, &st, WNOHANG);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break; /* no child of that group left */
        if (r == 0) {
            kill(-group, SIGKILL);
            sleep_ms(10);
        }
    }
}

static int drain(int *fd, int stream, ProcSink sink, void *ud)
{
    char buf[CHUNK];
    for (;;) {
        ssize_t r = read(*fd, buf, sizeof buf);
        if (r > 0) {
            sink(ud, stream, buf, (size_t)r);
            if ((size_t)r < sizeof buf)
                return 0;
            continue;
        }
        if (r == 0) {
            close_fd(fd);
            return 0;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        int e = errno;
        close_fd(fd);
        return e;
    }
}

static void feed(Proc *p)
{
    while (p->stdin_off < p->stdin_len) {
        ssize_t w = write(p->in, p->stdin_data + p->stdin_off, p->stdin_len - p->stdin_off);
        if (w > 0) {
            p->stdin_off += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        break; /* EPIPE: the child does not read its input; that is its business */
    }
    close_fd(&p->in);
}

static int ms_until(double now, double when)
{
    double ms = (when - now) * 1000.0 + 1.0;
    if (ms < 0)
        return 0;
    return ms > 1e9 ? 1000000000 : (int)ms;
}

int proc_wait(Proc *p, ProcSink sink, void *ud, const volatile sig_atomic_t *cancel)
{
    const double never = 1e300;
    double deadline = p->timeout > 0 ? p->start + p->timeout : never;
    double kill_at = never, killed_at = 0;
    int rc = 0;

    for (;;) {
        double now = proc_now();
        if (p->stop == 1) { /* SIGTERM now, SIGKILL after the grace, the whole group awaited */
            p->stop = 2;
            signal_group(p, SIGTERM);
            kill_at = now + p->grace;
        }
        if (cancel != NULL && *cancel && !p->interrupted) {
            p->interrupted = 1;
            signal_group(p, SIGTERM);
            kill_at = now + p->grace;
        }
        if (!p->timed_out && now >= deadline) {
            p->timed_out = 1;
            signal_group(p, SIGTERM);
            kill_at = now + p->grace;
        }
        if (now >= kill_at) {
            signal_group(p, SIGKILL);
            kill_at = never;
            killed_at = now;
        }
        try_reap(p, WNOHANG);
        if (p->reaped && p->out < 0 && p->err < 0) {
            /* A stopped run ends only when its whole group is gone (or, after SIGKILL,
               nothing but zombies that init has yet to reap is left). */
            if (!p->timed_out && !p->interrupted && !p->stop)
                break;
            if (kill(-p->pid, 0) != 0)
                break;
            if (killed_at > 0 && now - killed_at > 0.5)
                break;
        }

        struct pollfd fds[3];
        int nfds = 0;
        if (p->out >= 0)
            fds[nfds++] = (struct pollfd){.fd = p->out, .events = POLLIN};
        if (p->err >= 0)
            fds[nfds++] = (struct pollfd){.fd = p->err, .events = POLLIN};
        if (p->in >= 0)
            fds[nfds++] = (struct pollfd){.fd = p->in, .events = POLLOUT};
        int wait_ms = ms_until(now, deadline < kill_at ? deadline : kill_at);
        if (p->out < 0 && p->err < 0 && wait_ms > STATUS_POLL_MS)
            wait_ms = STATUS_POLL_MS; /* pipes closed: only the exit is awaited */
        if (p->timed_out || p->interrupted || p->stop)
            wait_ms = wait_ms > STATUS_POLL_MS ? STATUS_POLL_MS : wait_ms;
        int n = poll(fds, (nfds_t)nfds, wait_ms);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = errno;
            break;
        }
        for (int i = 0; i < nfds; i++) {
            if (fds[i].revents == 0)
                continue;
            int e = 0;
            if (fds[i].fd == p->out)
                e = drain(&p->out, 1, sink, ud);
            else if (fds[i].fd == p->err)
                e = drain(&p->err, 2, sink, ud);
            else if (fds[i].fd == p->in)
                feed(p);
            if (e != 0 && rc == 0)
                rc = e;
        }
    }
    close_fd(&p->in);
    p->elapsed = proc_now() - p->start;
    return rc;
}

void proc_release(Proc *p)
{
    if (p->pid > 0 && !p->reaped) {
        signal_group(p, SIGKILL);
        try_reap(p, 0);
    }
    close_fd(&p->in);
    close_fd(&p->out);
    close_fd(&p->err);
}

/* 0 when a socket of family could bind port on the wildcard address, else errno. */
static int bind_test(int family, int port, int *bound_port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)port);
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)port);
        len = sizeof *a;
    }
    int rc = 0;
    if (bind(fd, (struct sockaddr *)&ss, len) != 0)
        rc = errno;
    else if (bound_port != NULL) {
        socklen_t n = sizeof ss;
        if (getsockname(fd, (struct sockaddr *)&ss, &n) != 0)
            rc = errno;
        else
            *bound_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    close(fd);
    return rc;
}

int proc_port_check(int port)
{
    if (port < 1 || port > 65535)
        return EINVAL;
    int rc = bind_test(AF_INET, port, NULL);
    if (rc != 0)
        return rc;
    rc = bind_test(AF_INET6, port, NULL);
    if (rc == EAFNOSUPPORT || rc == EADDRNOTAVAIL)
        rc = 0; /* no IPv6 here: nothing can listen there either */
    return rc;
}

int proc_free_port(void)
{
    int port = 0;
    int rc = bind_test(AF_INET, 0, &port);
    return rc != 0 ? -rc : port;
}
