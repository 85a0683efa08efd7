/* SPDX-License-Identifier: MIT */
/* room.h: where a slot may still fit — an index over a list of entries (the
 * model's nodes, a placement group's members, a bucket's placement groups)
 * that finds, from a position on, the first entry whose room could take a
 * request, without looking at the entries that could not.
 *
 * An entry's room is summarised (struct ccas_room): an upper bound of what it
 * has free of a few tracked resources, its bucket, whether it is open at all,
 * idle, inside or outside a placement group, and for a placement group how
 * many open members it has and how many more nodes it may take.  The index
 * keeps a tree (four children a node) over groups of CCAS_ROOM_GROUP entries;
 * each tree node holds the union of the summaries below it (the largest of
 * each figure, all flags and buckets), so a subtree none of whose entries
 * could take the request is skipped whole.  Finding the next candidate costs
 * O(log n), plus O(log n) for each candidate the caller then refuses.  The
 * owner's callback computes an entry's summary when the owner says the entry
 * changed; the index keeps it.
 *
 * Invariant: every kept summary is at least the entry's summary in the state
 * the owner last committed (ccas_room_update()), or the largest raised since
 * (ccas_room_raise()), and every tree node the union of those below it (as
 * a search or ccas_room_root() sees it: the tree nodes above entries
 * committed or raised are recomputed then, once for all of them).  An
 * owner's entries only shrink between commits (resources are consumed, nodes
 * close), so the index is never below the truth and never skips an entry
 * that could take the request.  An owner that tries something and may roll
 * it back raises, never updates, while trying: the index then stays above
 * the state it may return to.
 *
 * Depends on nothing but the C library; knows nothing of nodes or groups.
 */
#ifndef CCAS_ROOM_H
#define CCAS_ROOM_H

#include <stdbool.h>
#include <stdint.h>

/* How many resources a summary tracks (the engine picks the ones jobs ask
 * most for: ncpus, mem, ...); minimums on others are not indexed. */
#define CCAS_ROOM_NRES 4
/* Levels of the staircase of res[1] over res[0] (see struct ccas_room). */
#define CCAS_ROOM_STAIRS 8
/* Options of one choice a request may carry (see struct ccas_room_need). */
#define CCAS_ROOM_OPTIONS 4
/* Entries per leaf of the tree: looked at one by one. */
#define CCAS_ROOM_GROUP 8

enum ccas_room_flag {
    CCAS_ROOM_IDLE = 1,      /* an open node with no work (an exclusive slot may take it) */
    CCAS_ROOM_IN_PG = 2,     /* an open node with a placement group */
    CCAS_ROOM_NO_PG = 4,     /* an open node without one */
    CCAS_ROOM_UNGROUPED = 8, /* an open node that is no group's member */
};

struct ccas_room {
    float res[CCAS_ROOM_NRES]; /* free amounts, rounded up; -INFINITY: none */
    uint64_t buckets;          /* bit (bucket order % 64) of the bucket of an open node;
                                * every bit for a node in no bucket */
    uint32_t open;             /* open nodes (usable, not owned by an exclusive job) */
    uint32_t idle;             /* open nodes with no work */
    uint32_t grow;             /* placement groups: how many more nodes it may take */
    uint32_t open_grow;        /* open + grow (of one entry: the largest below) */
    uint32_t idle_grow;        /* idle + grow (likewise) */
    uint8_t flags;             /* enum ccas_room_flag */
    /* (what every search reads comes first, the staircase and counts after) */
    /* stair[l]: the largest res[1] of an entry whose res[0] reaches the
     * index's l-th threshold (two resources judged together: a node with
     * cores but no memory and another with memory but no cores do not make
     * a subtree that seems to have both); the index fills it in */
    float stair[CCAS_ROOM_STAIRS];
    /* count[l]: open nodes whose res[0] reaches the l-th threshold (the most
     * in one group, for a bucket's groups); 65535 means at least that many */
    uint16_t count[CCAS_ROOM_STAIRS];
};

/* What a request asks of an entry.  An entry passes when
 *   min(open_grow, open + avail) >= nodes (idle and idle_grow when only idle
 *   nodes will do), count[count_level] + min(grow, avail) >= nodes (when
 *   count_level >= 0), and either
 *   avail >= 1 and grow >= 1 (a group that can grow takes new nodes, which fit), or
 *   open >= 1, every res >= the request's, stair[stair] >= res[1] (when
 *   stair >= 0), every res >= one of the options' (when it has some: a
 *   constraint's "or"), flags include the request's and buckets share a bit
 *   with the request's. */
struct ccas_room_need {
    float res[CCAS_ROOM_NRES]; /* -INFINITY where nothing is asked */
    int stair;                 /* the staircase level res[0] reaches, or -1 */
    uint64_t buckets;
    uint8_t flags;
    uint32_t nodes;    /* distinct nodes needed in the entry (1 for a node) */
    bool idle_only;    /* ... each of them idle or new (every slot exclusive) */
    int count_level;   /* ... each of them new or reaching this threshold of res[0], or -1 */
    uint32_t avail;    /* groups: how many new nodes the bucket may still take (0: none) */
    uint32_t noptions; /* 0: no choice */
    float option[CCAS_ROOM_OPTIONS][CCAS_ROOM_NRES];
};

/* The summary of entry `i` as it is now; a closed summary (ccas_room_closed())
 * for an entry that no longer exists. */
typedef void (*ccas_room_leaf_f) (void *arg, uint32_t i, struct ccas_room *out);

struct ccas_roomidx;

enum ccas_room_mode {
    CCAS_ROOM_SUM = 1,    /* a tree node's open, idle and count are the sums below
                           * (a group's member list: the root counts its members),
                           * else the largest */
    CCAS_ROOM_COUNTS = 2, /* keep count[] (else it is 0) */
};

/* `mode`: enum ccas_room_mode flags.  `hint`: how many entries to make room
 * for at first.  `stairs`: the
 * CCAS_ROOM_STAIRS thresholds of res[0], rising (copied), or NULL for no
 * staircase.  `leaf(arg, ...)` computes summaries: the index fills in stair
 * itself, and count too when it has thresholds (else it keeps the leaf's).
 * Caller frees with ccas_room_destroy().  NULL when out of memory. */
struct ccas_roomidx *ccas_room_create (int mode, uint32_t hint, const float *stairs, ccas_room_leaf_f leaf,
                                       void *arg);
void ccas_room_destroy (struct ccas_roomidx *x);

/* Commit entry `i`: its summary is recomputed now, its group's and the tree
 * above at the next search (or ccas_room_root()), once for all the entries
 * committed since.  Call for each entry that changed once the change is
 * final.  Returns 0, -1 when out of memory (growing the index). */
int ccas_room_update (struct ccas_roomidx *x, uint32_t i);

/* Raise entry `i`'s kept summary to what it is now, without lowering it
 * (an entry made while trying something that may be rolled back); the tree
 * above it follows at the next search.  Returns 0, -1 when out of memory. */
int ccas_room_raise (struct ccas_roomidx *x, uint32_t i);

/* Commit that the list has `n` entries: entries past it (made for attempts
 * that failed) leave the tree. */
void ccas_room_truncate (struct ccas_roomidx *x, uint32_t n);

/* Forget every entry (a list that starts again empty). */
void ccas_room_clear (struct ccas_roomidx *x);

/* The first entry in [from, end) whose kept summary passes `need`, or -1. */
int64_t ccas_room_first (struct ccas_roomidx *x, uint32_t from, uint32_t end,
                         const struct ccas_room_need *need);

/* The union of every entry.  Borrowed; valid until the next change. */
const struct ccas_room *ccas_room_root (struct ccas_roomidx *x);

/* A summary that passes nothing, and a need that asks nothing. */
void ccas_room_closed (struct ccas_room *s);
void ccas_room_need_any (struct ccas_room_need *n);

/* Whether `s` passes `n`. */
bool ccas_room_passes (const struct ccas_room *s, const struct ccas_room_need *n);

/* `v` as an upper bound in a summary (rounded up), and as a minimum in a need
 * (rounded down, less the tolerance ccas_constraint_fits() allows). */
float ccas_room_bound (double v);
float ccas_room_minimum (double v);

#endif /* !CCAS_ROOM_H */
