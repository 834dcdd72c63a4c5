"""The set-up queue_sim.py and queue_sim_ip.py share (the new-user trial of session 36's
vsim.py and ipsim.py): their common options and the FIFO server with K slots fed by
Poisson arrivals. Each simulator keeps its own per-request arithmetic; the random draws
come in the order they always did (arrivals, then per request: the noise factor, the
simulator's own draws, the token gaps), so a seed gives the same files as before."""
import argparse
import heapq
import os
import sys

np = None  # numpy, imported by need_numpy() once the options are read (--help needs none)


def need_numpy():
    """numpy, or one line saying how to get it and exit 1 (a python3 without it may come
    first on PATH: the scripts' #! line is /usr/bin/python3)."""
    global np
    try:
        import numpy
    except ImportError:
        sys.stderr.write("%s: needs numpy: use /usr/bin/python3 or apt install python3-numpy\n"
                         % os.path.basename(sys.argv[0]))
        sys.exit(1)
    np = numpy
    return numpy


def options(extra, description):
    """The simulators' common options, each with its unit; extra(ap) adds a simulator's own."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", metavar="OUTDIR", help="the folder the result files go into (made if missing)")
    ap.add_argument("--rates", required=True, metavar="R,R,...",
                    help="the offered loads, requests per second (Poisson arrivals), one load point each")
    ap.add_argument("--slots", type=int, default=100, metavar="K",
                    help="requests the server runs at once; the rest wait in arrival order (default 100)")
    ap.add_argument("--ttft0", type=float, default=0.1, metavar="S",
                    help="seconds to the first token of a request that did not wait for a slot (default 0.1)")
    ap.add_argument("--tpot", type=float, default=0.02, metavar="S",
                    help="seconds per output token after the first (default 0.02)")
    ap.add_argument("--outtok", type=int, default=100, metavar="N", help="output tokens a request (default 100)")
    ap.add_argument("--intok", type=int, default=500, metavar="N", help="input tokens a request (default 500)")
    ap.add_argument("--dur", type=float, default=60, metavar="S",
                    help="seconds of arrivals at each rate: rate x S requests a load point (default 60)")
    ap.add_argument("--seed", type=int, default=1, metavar="N",
                    help="the random seed: the same seed, the same files (default 1)")
    ap.add_argument("--noise", type=float, default=0.1, metavar="F",
                    help="the sigma of the lognormal factor on each request's times, unitless (default 0.1)")
    extra(ap)
    return ap.parse_args()


class Fifo:
    """One load point: round(rate * dur) Poisson arrivals from t (starts), served by
    a.slots slots in arrival order."""

    def __init__(self, rng, a, t, rate):
        self.rng, self.a = rng, a
        self.n = int(round(rate * a.dur))
        self.starts = t + np.cumsum(rng.exponential(1 / rate, self.n))
        self.free = [self.starts[0]] * a.slots
        heapq.heapify(self.free)

    @classmethod
    def closed(cls, rng, a, t):
        """A closed-loop load point from t: no arrivals drawn (its users send, the caller's
        loop), its a.slots slots free from t."""
        self = cls.__new__(cls)
        self.rng, self.a, self.n, self.starts = rng, a, 0, []
        self.free = [t] * a.slots
        return self

    def take(self, s):
        """A request arriving at s: its noise factor f and when a slot starts it."""
        f = self.rng.lognormal(0, self.a.noise)
        return f, max(s, heapq.heappop(self.free))

    def gaps(self, f):
        """Its outtok - 1 inter-token gaps, around tpot * f."""
        return self.rng.lognormal(np.log(self.a.tpot * f), 0.05, self.a.outtok - 1)

    def release(self, at):
        """Its slot is free again at at."""
        heapq.heappush(self.free, at)
