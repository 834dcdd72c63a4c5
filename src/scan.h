/*
** scan.h — one streaming pass over JSON, JSON Lines or CSV, routing matched values
** into accumulators (in C) or projected records to a callback. Lua-free.
**
** Paths (JSONPath-like, fixed length):
**   $                 the document (each line's document in JSON Lines)
**   .key  ["key"]     an object member ("key" may hold any character, \" and \\)
**   .*                any member
**   [N]  [*]  [-1]    the N-th (from 0), any, the last element of an array
** Field paths of a record are relative: "start_time", "info.output_token_times[0]",
** and "#path" for the length of the array at path.
**
** Memory: a window of the input (it grows only to hold the longest single token, or
** a captured container), the path stack, and what the sinks keep.
*/
#ifndef LLMD_SCAN_H
#define LLMD_SCAN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "stats.h"

#define SCAN_MAX_MATCHERS 64 /* rules and fields together */

/* a CSV file this large is scanned in parts at once */
#define SCAN_PAR_MIN (64u << 20)

enum { STEP_KEY, STEP_ANY_KEY, STEP_INDEX, STEP_LAST, STEP_ANY_INDEX };

typedef struct ScanStep {
    int kind;
    char *key; /* STEP_KEY, owned */
    size_t klen;
    int64_t index; /* STEP_INDEX */
} ScanStep;

typedef struct ScanPath {
    ScanStep *steps; /* owned */
    int n;
    int length_of; /* a "#path" field: the array's length */
    int last_at;   /* index of the [-1] step, or -1 */
} ScanPath;

/* Parses text into out (absolute: starts with '$'; else relative). 0, or -1 with err. */
int scan_path_parse(const char *text, int relative, ScanPath *out, char *err, size_t errlen);
/* A CSV column's path: the one step named name. 0, or -1 when out of memory. */
int scan_path_column(const char *name, ScanPath *out);
void scan_path_free(ScanPath *p);

enum { RED_NONE, RED_DIFFS, RED_FIRST, RED_LAST, RED_COUNT, RED_SUM, RED_MIN, RED_MAX };
enum { SINK_STATS, SINK_RECORD };

/* A captured field value. Strings and raw container text live in the scanner's arena. */
enum { VAL_NONE, VAL_NULL, VAL_FALSE, VAL_TRUE, VAL_INT, VAL_FLOAT, VAL_STRING, VAL_RAW };
typedef struct ScanValue {
    int type;
    int64_t i;
    double d;
    size_t off, len; /* VAL_STRING, VAL_RAW: arena span */
    uint64_t start;  /* VAL_RAW: the absolute offset of its first byte in the document */
} ScanValue;

typedef struct ScanRule {
    ScanPath path; /* for CSV: steps[0].key is the column name */
    int sink;
    Stats *stats; /* SINK_STATS */
    int reduce;
    int skip_bad;             /* count non-numeric matches instead of failing */
    int first_field, nfields; /* SINK_RECORD: its fields in Scanner.fields */
    int args; /* SINK_RECORD with fields: their values passed as arguments (lscan.c) */
    /* outcome */
    uint64_t matched, skipped, empty;
    /* running state */
    uint64_t red_n;
    double red_acc, red_prev;
    double *tent; /* values held back by a [-1] step until the array ends */
    size_t ntent, tcap;
} ScanRule;

typedef struct ScanField {
    ScanPath path;
    int rule;
    ScanValue val;
} ScanField;

struct Scanner;
/* Called at the end of a record of a SINK_RECORD rule: whole is the matched value
   (raw text for a container) for a rule without fields, else NULL and the rule's
   fields (s->fields[first_field ..]) hold the projection. Strings are in s->arena.
   To stop the scan, the callback sets s->stop. */
typedef void (*ScanRecordFn)(struct Scanner *s, int rule, const ScanValue *whole);

enum { SCAN_JSON, SCAN_JSONL, SCAN_CSV };

typedef struct ScanFrame {
    uint64_t active;  /* matchers whose prefix matches the path to this value */
    uint64_t reduce;  /* rules reducing this array */
    uint64_t lens;    /* fields counting this array's elements */
    uint64_t capture; /* matchers capturing this container's raw text */
    uint64_t records; /* rules whose record is this value */
    uint64_t start;   /* absolute offset of the value's first byte */
    int64_t index;    /* arrays: the next element's index */
    int is_array;
    /* arrays whose elements' matchers do not depend on the index ([*], [-1]): */
    int fixed;             /* no [N] names an element: child_active is every element's */
    int64_t max_index;     /* the largest N of an [N] here, or -1 (child_active: the
                              elements after it) */
    int has_last;          /* a matcher's [-1] is at this array */
    uint64_t child_active; /* the matchers every element carries */
    uint64_t child_end;    /* those whose path ends at an element */
    uint64_t child_num;    /* those of them that just add a number to an accumulator */
    /* objects: the member names any matcher here goes on with (keys.n < 0: any name
       may matter), so that the parser passes over the other members itself */
    JsonKeys keys;
    uint64_t key_mask[JSON_KEYS_MAX]; /* keys.key[i]: the matchers a member of that name
                                         goes on with (what advance gives for it) */
    char key[40];                     /* the member name or index that led here, for messages */
} ScanFrame;

typedef struct Scanner {
    /* (fields below are read by the record callback) */
    const char *name; /* for messages */
    int format;

    /* input: one of fd (with gz, or read with read()), fp, or mem */
    int fd;
    void *gz; /* gzFile */
    FILE *fp;
    const char *mem;
    size_t memlen;
    uint64_t fsize; /* a regular file: the offset its reads end at (its size when opened:
                       more is not read; the end before it is an error: the file shrank) */
    uint64_t fgot;  /* a regular file: the offset of the next byte to read */
    int eof;
    size_t read_max;  /* bytes per read at most (0: 128 KiB); tests set it tiny */
    int one_by_one;   /* tests: every token through the scanner (no fast lane for arrays of
                         numbers, no skipping of containers no rule looks into) */
    int portable;     /* tests: CSV rows split by the plain-C code where SSE2 is there */
    uint64_t refills; /* how many times the window was refilled (tests: linear reading) */
    /* a signal handler's counter: when it differs from interrupt_base (checked at every
       read) the scan fails with "interrupted" */
    const volatile sig_atomic_t *interrupted;
    sig_atomic_t interrupt_base;

    /* the window */
    char *buf;
    size_t cap, len;
    uint64_t base;     /* absolute offset of buf[0] */
    int own_buf;       /* 1: malloc'd, 2: a mapping of its own (alloc_window) */
    size_t lead;       /* buf is this many bytes (< 64) into its allocation, cap counted
                          from buf: refill places the kept bytes so that each read lands
                          at its file offset's place in a cache line (see refill) */
    size_t window_max; /* the largest window held at once, bytes (the parts' together when
                          a CSV is read in parts at once): what a scan's memory is bounded
                          by, told to tests as the result's window */
    /* the rules' accumulators sized once the first SIZE_HINT_AT bytes from hint_from are
       read (see size_hint in scan.c): hint_at is where, 0 before the first read,
       UINT64_MAX once done */
    uint64_t hint_from, hint_at;
    /* rules (bit m: rules[m]) whose accumulator had no sample at that point, still to be
       sized; of them, those whose samples have begun: at hint_late_from[m], with
       hint_late_n[m] samples then */
    uint64_t hint_late, hint_seen;
    uint64_t hint_late_from[SCAN_MAX_MATCHERS], hint_late_n[SCAN_MAX_MATCHERS];

    JsonParser p;

    ScanRule *rules;
    int nrules;
    ScanField *fields;
    int nfields;
    uint64_t rule_bits;
    int anchor[SCAN_MAX_MATCHERS]; /* fields: the depth of their record */

    ScanFrame *frames; /* JSON_MAX_DEPTH + 1 */
    int depth;         /* open containers */
    int open_captures;
    int open_records;

    char *arena;
    size_t alen, acap;

    ScanRecordFn on_record;
    void *ud; /* the callback owner's */
    int stop; /* set by the callback owner to abort (an error is pending) */

    /* CSV */
    char sep;
    /* a regular file: threads is how many parts a large file is scanned in at once (0:
       one per online CPU; 1: serial), par_min the size below which it stays serial (0:
       SCAN_PAR_MIN); par_parts tells how many parts the scan used (1: the serial scan,
       also after a fallback to it) */
    int threads;
    size_t par_min;
    int par_parts;
    /* tests: called once the cuts of a scan in parts are known (cut[0] = 0 .. cut[np],
       the end), before the parts are read */
    void (*on_cuts)(struct Scanner *s, const uint64_t *cut, int np);

    uint64_t records; /* JSON Lines documents / CSV rows read */
    char err[512];
} Scanner;

/* Prepares s for rules and fields (owned by the caller until scan_free). */
void scan_init(Scanner *s, const char *name, int format);
/*
** Input: a path (gzip detected by its magic bytes), "-" for stdin, a FILE*, or memory.
** A plain regular file is read into the window (a CSV scanned in parts at once: each
** part into a window of its own, with pread() from its own offsets), never mapped:
** read() costs less than touching a map, whether the file sits in the page cache in
** large folios (read back from disk) or in 4 KiB pages (just written). The file is
** read as long as it was when opened, and an end before that (it shrank) is an error
** naming the first byte gone.
*/
int scan_open_path(Scanner *s, const char *path);
void scan_open_file(Scanner *s, FILE *fp);
void scan_open_mem(Scanner *s, const char *text, size_t len);
/* Runs the pass. 0, or -1 with s->err set. */
int scan_run(Scanner *s);
void scan_free(Scanner *s);

#endif
