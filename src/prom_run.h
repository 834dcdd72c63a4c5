/*
** prom_run.h — prom.c's cached_run, compiled once per instruction set: prom.c defines
** RUN_NAME (the function), RUN_TARGET (its target attribute), RUN_SAME(t, c, n) (are
** the n bytes of the text at t those cached at c?) and RUN_WHOLE (whole_value or one
** with its answers), then includes this file. The compare and the value are most of what
** a cached sample costs: inline, in AVX2 where the CPU has it.
*/
/*
** agg_parse's path for the text the pod's cache knows: from r->t, every sample whose
** lines up to its value are the text of its position last time, its value a plain number
** and a newline, goes to update(), until one is not (or a signal came: agg_parse says so;
** looked at every 64 positions, not at each). A function of its own, so that its state
** stays in registers (in agg_parse's loop, among the full parse's, it lived on the stack);
** for the same reason what is rare goes out of line and only it is counted. A fast series
** (a counter that did not fall, later in time: most samples) is updated here as update()
** would, which was most of a sample's instructions. 0, or -2 with a->err (r at the failed
** sample).
*/
RUN_TARGET static __attribute__((noinline)) int RUN_NAME(PromAgg *a, const PromPos *pos,
                                                         size_t npos, const char *end,
                                                         const volatile sig_atomic_t *intr,
                                                         sig_atomic_t intr_base, CachedRun *r)
{
    const char *t = r->t;
    const PromPos *e = pos + r->k, *const last_pos = pos + npos;
    uint64_t line = r->line;
    uint64_t other = 0, slow = 0;         /* values whole_value did not read; samples not fast */
    PromSeries *const series = a->series; /* (update() adds none) */
    const double now = a->t;
    unsigned left = 64; /* positions before the signal is looked at */
    int rc = 0;
    for (; e < last_pos; e++) {
        if ((size_t)(end - t) <= e->len || !RUN_SAME(t, e->text, e->len))
            break; /* (nothing known: len SIZE_MAX) */
        if (--left == 0) {
            left = 64;
            if (intr != NULL && *intr != intr_base)
                break;
        }
        /* the same lines as last time up to the value: a plain number, a newline */
        const char *v = t + e->len, *nl;
        double x;
        if (!RUN_WHOLE(v, end, &nl, &x)) {
            const char *onl; /* (its own: x and nl stay in registers) */
            double ox;
            if (!other_value(v, end, &onl, &ox))
                break;
            nl = onl;
            x = ox;
            other++;
        }
        line += e->lines + 1;
        const uint32_t sid = e->series;
        if (sid == 0) { /* a name match leaves out */
            slow++;
            t = nl + 1;
            continue;
        }
        PromSeries *s = &series[sid - 1];
        const double last = s->last_v;
        if (s->fast && now > s->last_t && x >= last) {
            /* update()'s answer: no reset, nothing pending; min stays (min <= last <= x) */
            s->prev_v = last;
            s->last_reset = 0;
            s->increase += x - last;
            if (x > s->max)
                s->max = x;
            s->last_t = now;
            s->last_v = x;
            s->samples++;
        } else {
            slow++;
            if (update_out(a, sid - 1, x, line) != 0) {
                rc = -2; /* at the failed sample, counted as read, as agg_parse reports it */
                break;
            }
        }
        t = nl + 1;
    }
    const size_t k = (size_t)(e - pos);
    const uint64_t cached = k - r->k + (rc != 0);
    a->samples += cached - slow; /* the fast ones: update() counted its own */
    r->t = t;
    r->k = k;
    r->line = line;
    r->cached = cached;
    r->whole = cached - other;
    return rc;
}
