/* A batch of Go Fish games in C99: the second home of the rules (docs/research.md).

   arena/engine/match.py is the referee; this file plays the same flow, decision by decision,
   for N games at once, and writes each seat's observation (arena/env/encoding.py's
   `SeatView.vector`) and action mask into caller-owned buffers (numpy arrays, or any writable
   buffer: no numpy header is needed to build it). arena/core/pure.py is the same code in
   Python, used when this extension is not built; tests/test_core.py holds both to the engine,
   event by event.

   Decisions are asks only: every draw (go-fish, pick-up) takes a pond index from the game's
   own generator (splitmix64, seeded from the deal's seed), and the deal is Python's
   `random.Random(seed).shuffle` of the pack (MT19937, ported below), then `randrange(seats)`
   for a random starting seat: `MatchSetup.from_seed`'s deal. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define R 14 /* rank slots, 0 Ace ... 13 King, 11 the Knight */

enum { RUNNING = 0, COMPLETED = 1, TURN_LIMIT = 2, STALLED = 3 };
enum { EV_ASKED = 0, EV_REFUSED = 1, EV_FISHED = 2, EV_PICKED = 3, EV_BOOK = 4, EV_LUCKY = 5,
       EV_NO_ONE = 6 };
enum { REFUSED_NOT_AN_OBJECT = 0, REFUSED_ITSELF = 1, REFUSED_NOT_IN_HAND = 2 };
enum { NEXT_ASKED = 0, NEXT_CLOCKWISE = 1, NEXT_AFTER_ASKER = 2 };
#define EVENT_INTS 8

/* ---- MT19937 as CPython's _randommodule.c seeds and draws it ------------------------------ */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
} Twister;

static void mt_init_genrand(Twister *mt, uint32_t s) {
    mt->state[0] = s;
    for (int i = 1; i < MT_N; i++) {
        uint32_t prev = mt->state[i - 1];
        mt->state[i] = 1812433253U * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    mt->index = MT_N;
}

static void mt_init_by_array(Twister *mt, const uint32_t *key, int length) {
    mt_init_genrand(mt, 19650218U);
    uint32_t *m = mt->state;
    int i = 1, j = 0;
    for (int k = MT_N > length ? MT_N : length; k; k--) {
        m[i] = (m[i] ^ ((m[i - 1] ^ (m[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            m[0] = m[MT_N - 1];
            i = 1;
        }
        if (j >= length) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        m[i] = (m[i] ^ ((m[i - 1] ^ (m[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            m[0] = m[MT_N - 1];
            i = 1;
        }
    }
    m[0] = 0x80000000U;
}

static uint32_t mt_next(Twister *mt) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *m = mt->state, y;
    if (mt->index >= MT_N) {
        int k;
        for (k = 0; k < MT_N - MT_M; k++) {
            y = (m[k] & 0x80000000U) | (m[k + 1] & 0x7fffffffU);
            m[k] = m[k + MT_M] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; k < MT_N - 1; k++) {
            y = (m[k] & 0x80000000U) | (m[k + 1] & 0x7fffffffU);
            m[k] = m[k + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (m[MT_N - 1] & 0x80000000U) | (m[0] & 0x7fffffffU);
        m[MT_N - 1] = m[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1U];
        mt->index = 0;
    }
    y = m[mt->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* `random.Random._randbelow(n)` for 1 <= n < 2**32: getrandbits(n.bit_length()), rejected
   while >= n. */
static uint32_t mt_below(Twister *mt, uint32_t n) {
    int k = 0;
    for (uint32_t v = n; v; v >>= 1) k++;
    uint32_t r;
    do {
        r = mt_next(mt) >> (32 - k);
    } while (r >= n);
    return r;
}

/* ---- the game's own generator (draws, random actions): splitmix64 ------------------------- */

static uint32_t rng_below(uint64_t *state, uint32_t n) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (uint32_t)((z >> 33) % n);
}

#define DRAW_SALT 0x6A09E667F3BCC909ULL

/* ---- the batch ------------------------------------------------------------------------------ */

typedef struct {
    int16_t *pond;      /* card ids, pond order */
    int16_t *hands;     /* seats rows of `pack`, hand order */
    int32_t *held;      /* cards in each hand */
    int32_t *books;     /* books laid by each seat */
    uint8_t *holds;     /* seats x R: public, as every seat was told */
    uint8_t *lacks;     /* seats x seats x R: what each viewer was told */
    int32_t *known_pond; /* the pond's size as each viewer last saw it */
    int32_t *events;
    Py_ssize_t events_len, events_cap;
    uint64_t rng, next_seed, stride;
    int32_t pond_len, seat, turns, idle, status, sent;
    /* A hand found free of books is not scanned again until a card comes in (Table's cache). */
    uint8_t may_hold[64];
} Game;

typedef struct {
    PyObject_HEAD
    Game *games;
    Py_ssize_t count;
    int seats, pack, hand_size, min_hand, next_player, decks, knights, lucky, refill_empty,
        refill_on_turn, draw_when_no_one, random_start, max_turns, max_idle, record, books_reward;
    uint8_t rank_of[64 * 56], suit_of[64 * 56];
} Batch;

#define HAND(b, g, s) ((g)->hands + (Py_ssize_t)(s) * (b)->pack)

static int event(Batch *b, Game *g, int kind, int seat, int a, int c, int d, int e, int f) {
    if (!b->record) return 0;
    if (g->events_len + EVENT_INTS > g->events_cap) {
        Py_ssize_t cap = g->events_cap ? 2 * g->events_cap : 64 * EVENT_INTS;
        int32_t *grown = PyMem_Realloc(g->events, (size_t)cap * sizeof(int32_t));
        if (!grown) return -1;
        g->events = grown;
        g->events_cap = cap;
    }
    int32_t *rec = g->events + g->events_len;
    rec[0] = kind;
    rec[1] = g->sent - 1;
    rec[2] = seat;
    rec[3] = a;
    rec[4] = c;
    rec[5] = d;
    rec[6] = e;
    rec[7] = f;
    g->events_len += EVENT_INTS;
    return 0;
}

/* A failed allocation of the event log is kept and raised once the step returns. */
static int out_of_memory;
#define EVENT(...) (out_of_memory |= event(__VA_ARGS__))

static int draw(Batch *b, Game *g, int seat, int kind) {
    g->sent++; /* go-fish or pick-up */
    int index = (int)rng_below(&g->rng, (uint32_t)g->pond_len);
    int card = g->pond[index];
    memmove(g->pond + index, g->pond + index + 1, (size_t)(g->pond_len - index - 1) * sizeof(int16_t));
    g->pond_len--;
    HAND(b, g, seat)[g->held[seat]++] = (int16_t)card;
    g->may_hold[seat] = 1;
    EVENT(b, g, kind, seat, index, card, b->rank_of[card], 0, 0);
    g->sent++; /* its result */
    g->known_pond[seat] = g->pond_len;
    return card;
}

static int pick_up(Batch *b, Game *g, int seat, int target) {
    int drawn = 0;
    while (g->held[seat] < target && g->pond_len) {
        draw(b, g, seat, EV_PICKED);
        drawn++;
    }
    return drawn;
}

static int refill(Batch *b, Game *g, int seat, int turn_starts) {
    int target = b->min_hand;
    if (g->held[seat] == 0 && b->refill_empty && (turn_starts || !b->refill_on_turn) &&
        b->refill_empty > target)
        target = b->refill_empty;
    return pick_up(b, g, seat, target);
}

/* The lowest rank above `after` of which `seat` holds all four suits, or -1. */
static int next_book(Batch *b, Game *g, int seat, int after) {
    if (!g->may_hold[seat]) return -1;
    uint8_t suits[R] = {0};
    const int16_t *hand = HAND(b, g, seat);
    for (int i = 0; i < g->held[seat]; i++) suits[b->rank_of[hand[i]]] |= (uint8_t)(1 << b->suit_of[hand[i]]);
    for (int rank = after + 1; rank < R; rank++)
        if (suits[rank] == 0xF) return rank;
    if (after < 0) g->may_hold[seat] = 0;
    return -1;
}

static void lay_book(Batch *b, Game *g, int seat, int rank) {
    int16_t *hand = HAND(b, g, seat);
    int ids[4], taken = 0, laid = 0, kept = 0;
    for (int i = 0; i < g->held[seat]; i++) {
        int card = hand[i];
        if (b->rank_of[card] == rank && !(taken & (1 << b->suit_of[card]))) {
            taken |= 1 << b->suit_of[card];
            ids[laid++] = card;
        } else {
            hand[kept++] = (int16_t)card;
        }
    }
    g->held[seat] = kept;
    g->books[seat]++;
    EVENT(b, g, EV_BOOK, seat, rank, ids[0], ids[1], ids[2], ids[3]);
}

static void check_books(Batch *b, Game *g, int seat) {
    int found = 1;
    while (found) {
        found = 0;
        int rank = next_book(b, g, seat, -1);
        while (rank >= 0) {
            found = 1;
            lay_book(b, g, seat, rank);
            refill(b, g, seat, 0);
            rank = next_book(b, g, seat, rank);
        }
    }
}

static void check_books_all(Batch *b, Game *g) {
    for (int seat = 0; seat < b->seats; seat++) check_books(b, g, seat);
}

static int nobody_holds(Batch *b, Game *g, int except) {
    for (int s = 0; s < b->seats; s++)
        if (s != except && g->held[s]) return 0;
    return 1;
}

static int finish(Batch *b, Game *g, int status) {
    g->status = status;
    g->sent += b->seats; /* match-end */
    return status;
}

/* The turns of `Match._turns` up to the next ask (delivered: `RUNNING`, `g->seat` decides) or
   the end of the match. */
static int advance(Batch *b, Game *g) {
    int n = b->seats;
    for (;;) {
        int seat = g->seat;
        int anyone = !nobody_holds(b, g, -1);
        if (!g->pond_len && !anyone) return finish(b, g, COMPLETED);
        if (!g->held[seat] && b->refill_empty && g->pond_len) {
            refill(b, g, seat, 1);
            check_books_all(b, g);
            continue;
        }
        if (!anyone) {
            pick_up(b, g, seat, b->min_hand > 1 ? b->min_hand : 1);
            check_books_all(b, g);
            continue;
        }
        if (!g->held[seat]) {
            g->seat = (seat + 1) % n;
            continue;
        }
        if (g->turns >= b->max_turns) return finish(b, g, TURN_LIMIT);
        if (g->idle >= b->max_idle) return finish(b, g, STALLED);
        g->turns++;
        if (b->draw_when_no_one && g->pond_len && nobody_holds(b, g, seat)) {
            g->idle = 0;
            EVENT(b, g, EV_NO_ONE, seat, 0, 0, 0, 0, 0);
            draw(b, g, seat, EV_FISHED);
            check_books_all(b, g);
            g->seat = (seat + 1) % n;
            continue;
        }
        g->sent++; /* ask */
        g->known_pond[seat] = g->pond_len;
        return RUNNING;
    }
}

static int hand_over(Batch *b, Game *g, int asked, int asker, int rank) {
    int16_t *given = HAND(b, g, asked), *taking = HAND(b, g, asker);
    int kept = 0, moved = 0;
    for (int i = 0; i < g->held[asked]; i++) {
        int card = given[i];
        if (b->rank_of[card] == rank) {
            taking[g->held[asker]++] = (int16_t)card;
            moved++;
        } else {
            given[kept++] = (int16_t)card;
        }
    }
    g->held[asked] = kept;
    if (moved) g->may_hold[asker] = 1;
    return moved;
}

static int resolve_ask(Batch *b, Game *g, int asker, int asked, int card, int rank) {
    int n = b->seats;
    int moved = hand_over(b, g, asked, asker, rank);
    EVENT(b, g, EV_ASKED, asker, asked, card, rank, moved, 0);
    if (moved) check_books_all(b, g);
    int left_empty = !g->held[asked];
    int drew = refill(b, g, asked, 0);
    if (drew && left_empty && b->refill_empty) check_books(b, g, asked);
    /* hand-update to every seat */
    g->holds[asker * R + rank] = 1;
    g->holds[asked * R + rank] = 0;
    for (int v = 0; v < n; v++) {
        uint8_t *lacks = g->lacks + (Py_ssize_t)v * n * R;
        lacks[asker * R + rank] = 0;
        lacks[asked * R + rank] = 1;
        if (!moved && g->known_pond[v]) memset(lacks + asker * R, 0, R);
    }
    g->sent += n;
    return moved;
}

static int after_miss(Batch *b, int asker, int asked) {
    if (b->next_player == NEXT_ASKED) return asked;
    if (b->next_player == NEXT_CLOCKWISE) return (asked + 1) % b->seats;
    return (asker + 1) % b->seats;
}

static int first_of_rank(Batch *b, Game *g, int seat, int rank) {
    const int16_t *hand = HAND(b, g, seat);
    for (int i = 0; i < g->held[seat]; i++)
        if (b->rank_of[hand[i]] == rank) return hand[i];
    return -1;
}

/* The ask reply of `action` (encoding.reply_for), judged as `verify_ask` judges it, and the
   match played on to the next ask. */
static int act(Batch *b, Game *g, long action) {
    int n = b->seats, seat = g->seat;
    if (g->status != RUNNING) return g->status;
    int reason = -1, asked = 0, rank = 0, card = -1;
    if (action < 0 || action >= (long)n * R) {
        reason = REFUSED_NOT_AN_OBJECT;
    } else {
        asked = (int)(action / R);
        rank = (int)(action % R);
        if (asked == seat) {
            reason = REFUSED_ITSELF;
        } else {
            card = first_of_rank(b, g, seat, rank);
            if (card < 0) reason = REFUSED_NOT_IN_HAND;
        }
    }
    if (reason >= 0) {
        EVENT(b, g, EV_REFUSED, seat, reason, 0, 0, 0, 0);
        g->idle++;
        g->seat = (seat + 1) % n;
        return advance(b, g);
    }
    if (resolve_ask(b, g, seat, asked, card, rank)) {
        g->idle = 0;
        return advance(b, g);
    }
    if (g->pond_len) {
        g->idle = 0;
        int drawn = draw(b, g, seat, EV_FISHED);
        if (b->lucky && b->rank_of[drawn] == rank) {
            EVENT(b, g, EV_LUCKY, seat, drawn, rank, 0, 0, 0);
            g->sent += n; /* lucky-draw to every seat */
            g->holds[seat * R + rank] = 1;
            check_books_all(b, g);
            return advance(b, g);
        }
    } else {
        g->idle++;
    }
    check_books_all(b, g);
    g->seat = after_miss(b, seat, asked);
    return advance(b, g);
}

static int deal(Batch *b, Game *g, uint64_t seed) {
    Twister mt;
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(&mt, key, key[1] ? 2 : 1);
    int16_t *pond = g->pond;
    for (int i = 0; i < b->pack; i++) pond[i] = (int16_t)i;
    for (int i = b->pack - 1; i > 0; i--) {
        int j = (int)mt_below(&mt, (uint32_t)i + 1);
        int16_t t = pond[i];
        pond[i] = pond[j];
        pond[j] = t;
    }
    int n = b->seats;
    g->seat = b->random_start ? (int)mt_below(&mt, (uint32_t)n) : 0;
    g->rng = seed ^ DRAW_SALT;
    g->pond_len = b->pack;
    g->turns = g->idle = g->sent = 0;
    g->status = RUNNING;
    g->events_len = 0;
    memset(g->books, 0, (size_t)n * sizeof(int32_t));
    memset(g->holds, 0, (size_t)n * R);
    memset(g->lacks, 0, (size_t)n * n * R);
    for (int s = 0; s < n; s++) {
        memcpy(HAND(b, g, s), g->pond + s * b->hand_size, (size_t)b->hand_size * sizeof(int16_t));
        g->held[s] = b->hand_size;
        g->may_hold[s] = 1;
    }
    int dealt = n * b->hand_size;
    memmove(g->pond, g->pond + dealt, (size_t)(b->pack - dealt) * sizeof(int16_t));
    g->pond_len = b->pack - dealt;
    g->sent = 2 * n; /* init, starting-hand */
    for (int s = 0; s < n; s++) g->known_pond[s] = g->pond_len;
    check_books_all(b, g);
    return advance(b, g);
}

static void observe(Batch *b, Game *g, float *obs, int8_t *mask) {
    int n = b->seats, length = R + 2 * n + 5 + 2 * n * R;
    memset(obs, 0, (size_t)length * sizeof(float));
    memset(mask, 0, (size_t)n * R);
    if (g->status != RUNNING) return;
    int seat = g->seat, in_hands = 0;
    const int16_t *hand = HAND(b, g, seat);
    for (int i = 0; i < g->held[seat]; i++) obs[b->rank_of[hand[i]]] += 1.0f;
    obs[R + seat] = 1.0f;
    for (int s = 0; s < n; s++) {
        obs[R + n + s] = (float)g->held[s];
        in_hands += g->held[s];
    }
    obs[R + 2 * n] = (float)g->pond_len;
    obs[R + 2 * n + 1] = (float)((b->pack - in_hands - g->pond_len) / 4);
    obs[R + 2 * n + 2] = 1.0f; /* decision: ask */
    float *holds = obs + R + 2 * n + 5, *lacks = holds + n * R;
    const uint8_t *mine = g->lacks + (Py_ssize_t)seat * n * R;
    for (int i = 0; i < n * R; i++) {
        holds[i] = (float)g->holds[i];
        lacks[i] = (float)mine[i];
    }
    for (int s = 0; s < n; s++)
        if (s != seat)
            for (int rank = 0; rank < R; rank++) mask[s * R + rank] = obs[rank] > 0.0f;
}

/* A uniform pick among the valid asks (the mask's ones), from the game's generator. */
static long random_ask(Batch *b, Game *g) {
    int held[R], kinds = 0, n = b->seats, seat = g->seat;
    uint8_t seen[R] = {0};
    const int16_t *hand = HAND(b, g, seat);
    for (int i = 0; i < g->held[seat]; i++) seen[b->rank_of[hand[i]]] = 1;
    for (int rank = 0; rank < R; rank++)
        if (seen[rank]) held[kinds++] = rank;
    uint32_t pick = rng_below(&g->rng, (uint32_t)(kinds * (n - 1)));
    int other = (int)(pick / (uint32_t)kinds);
    if (other >= seat) other++;
    return (long)other * R + held[pick % (uint32_t)kinds];
}

static void rewards_of(Batch *b, Game *g, float *out) {
    int n = b->seats;
    for (int s = 0; s < n; s++) {
        if (b->books_reward) {
            out[s] = (float)g->books[s];
            continue;
        }
        int place = 1;
        for (int o = 0; o < n; o++) place += g->books[o] > g->books[s];
        out[s] = (float)(1.0 - 2.0 * (place - 1) / (n - 1)); /* engine/rules.place_reward */
    }
}

/* ---- rollouts for search: arena/bots/simulator.py's Sim, Policy and play_out ------------------

   The same table on counts (a card is rank * 4 + suit; the pond's last card is drawn first), the
   same `hard`-like policy with tie-breaks drawn as `random.Random(luck).choice` draws them, and
   master's `expected_books` at the end: `rollouts` returns, per candidate ask, exactly the
   floats the Python loop (`simulator.rollouts_in_python`) returns. */

#define SIM_SEATS 64
#define SIM_POND (64 * 56)

typedef struct {
    int seats, pond_len, min_hand, next_player;
    uint8_t cards[SIM_SEATS][56];
    int32_t ranks[SIM_SEATS][R];
    uint32_t held[SIM_SEATS], pending[SIM_SEATS];
    int32_t sizes[SIM_SEATS], books[SIM_SEATS];
    uint8_t pond[SIM_POND];
} Sim;

static void sim_gain(Sim *t, int seat, int card) {
    int rank = card >> 2;
    t->cards[seat][card]++;
    int count = ++t->ranks[seat][rank];
    t->sizes[seat]++;
    t->held[seat] |= 1U << rank;
    if (count >= 4) t->pending[seat] |= 1U << rank;
}

static void sim_pick_up(Sim *t, int seat, int target) {
    while (t->sizes[seat] < target && t->pond_len) sim_gain(t, seat, t->pond[--t->pond_len]);
}

static int lowest_bit(uint32_t bits) {
    int index = 0;
    while (!(bits & 1U)) {
        bits >>= 1;
        index++;
    }
    return index;
}

static void sim_check_books(Sim *t, int seat) {
    uint8_t *cards = t->cards[seat];
    int found = 0, last = -1;
    while (t->pending[seat]) {
        uint32_t later = last + 1 >= 32 ? 0 : (t->pending[seat] >> (last + 1)) << (last + 1);
        if (!later) {
            if (!found) return;
            found = 0;
            last = -1;
            continue;
        }
        int rank = lowest_bit(later), base = rank * 4;
        last = rank;
        if (cards[base] && cards[base + 1] && cards[base + 2] && cards[base + 3]) {
            for (int c = base; c < base + 4; c++) cards[c]--;
            int left = t->ranks[seat][rank] -= 4;
            if (left < 4) t->pending[seat] &= ~(1U << rank);
            if (!left) t->held[seat] &= ~(1U << rank);
            t->sizes[seat] -= 4;
            t->books[seat]++;
            found = 1;
            sim_pick_up(t, seat, t->min_hand);
        } else {
            t->pending[seat] &= ~(1U << rank);
        }
    }
}

static void sim_check_books_all(Sim *t) {
    for (int seat = 0; seat < t->seats; seat++)
        if (t->pending[seat]) sim_check_books(t, seat);
}

static int sim_hand_over(Sim *t, int asked, int asker, int rank) {
    int moved = t->ranks[asked][rank];
    if (moved) {
        for (int c = rank * 4; c < rank * 4 + 4; c++) {
            t->cards[asker][c] += t->cards[asked][c];
            t->cards[asked][c] = 0;
        }
        t->ranks[asked][rank] = 0;
        t->held[asked] &= ~(1U << rank);
        int count = t->ranks[asker][rank] += moved;
        if (count >= 4) t->pending[asker] |= 1U << rank;
        t->sizes[asked] -= moved;
        t->sizes[asker] += moved;
    }
    return moved;
}

/* Sim.ask: (cards moved, the seat whose turn is next) */
static int sim_ask(Sim *t, int asker, int asked, int rank, int *next) {
    int moved = sim_hand_over(t, asked, asker, rank);
    if (moved) sim_check_books_all(t);
    sim_pick_up(t, asked, t->min_hand);
    if (moved) {
        *next = asker;
        return moved;
    }
    if (t->pond_len) sim_gain(t, asker, t->pond[--t->pond_len]);
    sim_check_books_all(t);
    if (t->next_player == NEXT_ASKED) *next = asked;
    else if (t->next_player == NEXT_CLOCKWISE) *next = (asked + 1) % t->seats;
    else *next = (asker + 1) % t->seats;
    return 0;
}

/* Sim.to_move: the seat that asks next from `seat`'s turn, or -1 when it is over. */
static int sim_to_move(Sim *t, int seat) {
    for (;;) {
        int any = 0;
        for (int s = 0; s < t->seats; s++) any |= t->sizes[s] != 0;
        if (!any) {
            if (!t->pond_len) return -1;
            sim_pick_up(t, seat, t->min_hand > 1 ? t->min_hand : 1);
            sim_check_books_all(t);
            continue;
        }
        if (!t->sizes[seat]) {
            seat = (seat + 1) % t->seats;
            continue;
        }
        return seat;
    }
}

typedef struct {
    uint32_t holds[SIM_SEATS], lacks[SIM_SEATS];
    Twister rng;
} Policy;

/* Policy.choose: (seat asked, rank) for `seat`, which holds a card. */
static void policy_choose(Policy *p, Sim *t, int seat, int *asked, int *rank) {
    uint32_t mine = t->held[seat];
    for (int other = 0; other < t->seats; other++) {
        if (other != seat && t->sizes[other]) {
            uint32_t known = p->holds[other] & mine;
            if (known) {
                *asked = other;
                *rank = lowest_bit(known);
                return;
            }
        }
    }
    int most = 0, best[R], ties = 0;
    for (int r = 0; r < R; r++)
        if (t->ranks[seat][r] > most) most = t->ranks[seat][r];
    for (int r = 0; r < R; r++)
        if (t->ranks[seat][r] == most) best[ties++] = r;
    *rank = ties == 1 ? best[0] : best[mt_below(&p->rng, (uint32_t)ties)];
    uint32_t bit = 1U << *rank;
    int with_cards[SIM_SEATS], count = 0, fresh[SIM_SEATS], fresh_count = 0;
    for (int o = 0; o < t->seats; o++)
        if (o != seat && t->sizes[o]) with_cards[count++] = o;
    if (!count)
        for (int o = 0; o < t->seats; o++)
            if (o != seat) with_cards[count++] = o;
    for (int i = 0; i < count; i++)
        if (!(p->lacks[with_cards[i]] & bit)) fresh[fresh_count++] = with_cards[i];
    int *pool = fresh_count ? fresh : with_cards, size = fresh_count ? fresh_count : count;
    *asked = size == 1 ? pool[0] : pool[mt_below(&p->rng, (uint32_t)size)];
}

static void policy_seen(Policy *p, Sim *t, int asker, int asked, int rank, int moved) {
    uint32_t bit = 1U << rank;
    if (t->held[asker] & bit) p->holds[asker] |= bit;
    else p->holds[asker] &= ~bit;
    p->lacks[asker] &= ~bit;
    p->holds[asked] &= ~bit;
    if (!moved) {
        p->lacks[asked] |= bit;
        p->lacks[asker] = 0;
    }
}

static void expected_books(Sim *t, double *out) {
    int any = 0;
    for (int s = 0; s < t->seats; s++) {
        out[s] = (double)t->books[s];
        any |= t->sizes[s] != 0;
    }
    if (!any) return;
    for (int rank = 0; rank < R; rank++) {
        int most = 0, leaders = 0;
        for (int s = 0; s < t->seats; s++)
            if (t->ranks[s][rank] > most) most = t->ranks[s][rank];
        if (!most) continue;
        for (int s = 0; s < t->seats; s++) leaders += t->ranks[s][rank] == most;
        for (int s = 0; s < t->seats; s++)
            if (t->ranks[s][rank] == most) out[s] += 1.0 / leaders;
    }
}

static int read_ints(PyObject *list, int *out, Py_ssize_t cap, Py_ssize_t *count, long low,
                     long high, const char *what) {
    PyObject *items = PySequence_Fast(list, what);
    if (!items) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    if (n > cap) {
        Py_DECREF(items);
        PyErr_Format(PyExc_ValueError, "%s: more than %zd items", what, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(items, i));
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(items);
            return -1;
        }
        if (value < low || value > high) {
            Py_DECREF(items);
            PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, value);
            return -1;
        }
        out[i] = (int)value;
    }
    *count = n;
    Py_DECREF(items);
    return 0;
}

/* rollouts(hands, pond, books, min_hand, next_player, holds, lacks, luck, me, asks, horizon)
   -> [expected books per seat] per candidate ask (see simulator.rollouts_in_python). */
static PyObject *core_rollouts(PyObject *module, PyObject *args) {
    PyObject *hands, *pond, *books, *holds, *lacks, *asks;
    int min_hand, next_player, me, horizon;
    unsigned long luck;
    (void)module;
    if (!PyArg_ParseTuple(args, "OOOiiOOkiOi", &hands, &pond, &books, &min_hand, &next_player,
                          &holds, &lacks, &luck, &me, &asks, &horizon))
        return NULL;
    static Sim root, sim;
    static Policy start, policy;
    static int scratch[SIM_POND];
    Py_ssize_t seats, count;
    memset(&root, 0, sizeof root);
    PyObject *rows = PySequence_Fast(hands, "hands");
    if (!rows) return NULL;
    seats = PySequence_Fast_GET_SIZE(rows);
    if (seats < 2 || seats > SIM_SEATS || next_player < 0 || next_player > 2 || min_hand < 0 ||
        me < 0 || me >= seats) {
        Py_DECREF(rows);
        PyErr_SetString(PyExc_ValueError, "rollouts: settings out of range");
        return NULL;
    }
    root.seats = (int)seats;
    root.min_hand = min_hand;
    root.next_player = next_player;
    for (Py_ssize_t s = 0; s < seats; s++) {
        if (read_ints(PySequence_Fast_GET_ITEM(rows, s), scratch, SIM_POND, &count, 0, 55, "hand")) {
            Py_DECREF(rows);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < count; i++) sim_gain(&root, (int)s, scratch[i]);
    }
    Py_DECREF(rows);
    if (read_ints(pond, scratch, SIM_POND, &count, 0, 55, "pond")) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) root.pond[i] = (uint8_t)scratch[i];
    root.pond_len = (int)count;
    if (read_ints(books, scratch, SIM_SEATS, &count, 0, 1 << 20, "books")) return NULL;
    if (count != seats) return PyErr_Format(PyExc_ValueError, "books: one per seat");
    for (Py_ssize_t s = 0; s < seats; s++) root.books[s] = scratch[s];
    memset(&start, 0, sizeof start);
    int bits[SIM_SEATS];
    if (read_ints(holds, bits, SIM_SEATS, &count, 0, (1 << R) - 1, "holds")) return NULL;
    for (Py_ssize_t s = 0; s < count; s++) start.holds[s] = (uint32_t)bits[s];
    if (read_ints(lacks, bits, SIM_SEATS, &count, 0, (1 << R) - 1, "lacks")) return NULL;
    for (Py_ssize_t s = 0; s < count; s++) start.lacks[s] = (uint32_t)bits[s];
    uint32_t key[2] = {(uint32_t)luck, (uint32_t)((uint64_t)luck >> 32)};
    mt_init_by_array(&start.rng, key, key[1] ? 2 : 1);
    PyObject *candidates = PySequence_Fast(asks, "asks");
    if (!candidates) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(candidates);
    PyObject *out = PyList_New(n);
    if (!out) {
        Py_DECREF(candidates);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int pair[2];
        if (read_ints(PySequence_Fast_GET_ITEM(candidates, i), pair, 2, &count, 0, SIM_SEATS,
                      "ask") ||
            count != 2 || pair[0] >= seats || pair[1] >= R) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "ask: (seat, rank)");
            Py_DECREF(candidates);
            Py_DECREF(out);
            return NULL;
        }
        memcpy(&sim, &root, sizeof sim);
        memcpy(&policy, &start, sizeof policy);
        int mover, asked, rank;
        int moved = sim_ask(&sim, me, pair[0], pair[1], &mover);
        policy_seen(&policy, &sim, me, pair[0], pair[1], moved);
        for (int k = 0; k < horizon; k++) {
            int seat = sim_to_move(&sim, mover);
            if (seat < 0) break;
            policy_choose(&policy, &sim, seat, &asked, &rank);
            moved = sim_ask(&sim, seat, asked, rank, &mover);
            policy_seen(&policy, &sim, seat, asked, rank, moved);
        }
        double values[SIM_SEATS];
        expected_books(&sim, values);
        PyObject *row = PyList_New(seats);
        if (!row) {
            Py_DECREF(candidates);
            Py_DECREF(out);
            return NULL;
        }
        for (Py_ssize_t s = 0; s < seats; s++) PyList_SET_ITEM(row, s, PyFloat_FromDouble(values[s]));
        PyList_SET_ITEM(out, i, row);
    }
    Py_DECREF(candidates);
    return out;
}

static PyMethodDef module_methods[] = {
    {"rollouts", core_rollouts, METH_VARARGS,
     "rollouts(hands, pond, books, min_hand, next_player, holds, lacks, luck, me, asks, horizon)"},
    {NULL, NULL, 0, NULL},
};

/* ---- the Python type -------------------------------------------------------------------------- */

static void Batch_dealloc(Batch *self) {
    if (self->games) {
        for (Py_ssize_t i = 0; i < self->count; i++) {
            PyMem_Free(self->games[i].pond);
            PyMem_Free(self->games[i].events);
        }
        PyMem_Free(self->games);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Batch_init(Batch *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"games", "seats", "hand_size", "min_hand", "next_player", "decks",
                            "knights", "lucky", "refill_empty", "refill_on_turn",
                            "draw_when_no_one", "random_start", "max_turns", "max_idle",
                            "record", "books_reward", NULL};
    Py_ssize_t count;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "niiiiippipppiipp", names, &count, &self->seats,
                                     &self->hand_size, &self->min_hand, &self->next_player,
                                     &self->decks, &self->knights, &self->lucky,
                                     &self->refill_empty, &self->refill_on_turn,
                                     &self->draw_when_no_one, &self->random_start,
                                     &self->max_turns, &self->max_idle, &self->record,
                                     &self->books_reward))
        return -1;
    int ranks = self->knights ? 14 : 13;
    if (self->games) {
        PyErr_SetString(PyExc_TypeError, "a Batch is initialised once");
        return -1;
    }
    if (count < 1 || self->seats < 2 || self->seats > 64 || self->decks < 1 || self->decks > 64 ||
        self->hand_size < 0 || self->min_hand < 0 || self->refill_empty < 0 ||
        self->next_player < 0 || self->next_player > 2 ||
        (long)self->seats * self->hand_size > (long)self->decks * 4 * ranks) {
        PyErr_SetString(PyExc_ValueError, "settings out of range for the core");
        return -1;
    }
    self->pack = self->decks * 4 * ranks;
    for (int id = 0; id < self->pack; id++) {
        int slot = id % ranks;
        self->rank_of[id] = (uint8_t)(self->knights || slot < 11 ? slot : slot + 1);
        self->suit_of[id] = (uint8_t)((id % (4 * ranks)) / ranks);
    }
    self->games = PyMem_Calloc((size_t)count, sizeof(Game));
    if (!self->games) {
        PyErr_NoMemory();
        return -1;
    }
    self->count = count;
    int n = self->seats;
    /* One block per game: pond and hands (int16), then the int32 and uint8 arrays. */
    size_t cards = (size_t)(n + 1) * self->pack * sizeof(int16_t);
    cards = (cards + 7) & ~(size_t)7;
    size_t ints = (size_t)(3 * n) * sizeof(int32_t);
    size_t bytes = cards + ints + (size_t)n * R + (size_t)n * n * R;
    for (Py_ssize_t i = 0; i < count; i++) {
        Game *g = &self->games[i];
        char *block = PyMem_Calloc(1, bytes);
        if (!block) {
            PyErr_NoMemory();
            return -1;
        }
        g->pond = (int16_t *)block;
        g->hands = g->pond + self->pack;
        g->held = (int32_t *)(block + cards);
        g->books = g->held + n;
        g->known_pond = g->books + n;
        g->holds = (uint8_t *)(g->known_pond + n);
        g->lacks = g->holds + n * R;
        g->status = COMPLETED;
    }
    return 0;
}

static Game *game_at(Batch *self, Py_ssize_t i) {
    if (i < 0 || i >= self->count) {
        PyErr_SetString(PyExc_IndexError, "no game of that index");
        return NULL;
    }
    return &self->games[i];
}

static PyObject *finished(int status) {
    if (out_of_memory) {
        out_of_memory = 0;
        return PyErr_NoMemory();
    }
    return PyLong_FromLong(status);
}

static PyObject *Batch_reset(Batch *self, PyObject *args) {
    Py_ssize_t i;
    unsigned long long seed, stride = 0;
    if (!PyArg_ParseTuple(args, "nK|K", &i, &seed, &stride)) return NULL;
    Game *g = game_at(self, i);
    if (!g) return NULL;
    g->next_seed = seed + stride;
    g->stride = stride;
    return finished(deal(self, g, seed));
}

static PyObject *Batch_act(Batch *self, PyObject *args) {
    Py_ssize_t i;
    long action;
    if (!PyArg_ParseTuple(args, "nl", &i, &action)) return NULL;
    Game *g = game_at(self, i);
    if (!g) return NULL;
    return finished(act(self, g, action));
}

static PyObject *Batch_play_out(Batch *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i)) return NULL;
    Game *g = game_at(self, i);
    if (!g) return NULL;
    int status = g->status;
    while (status == RUNNING) status = act(self, g, random_ask(self, g));
    return finished(status);
}

static int buffer_of(Py_buffer *view, Py_ssize_t items, Py_ssize_t size, const char *what) {
    if (view->len != items * size) {
        PyErr_Format(PyExc_ValueError, "%s: a buffer of %zd items of %zd bytes, got %zd bytes",
                     what, items, size, view->len);
        return -1;
    }
    return 0;
}

/* observe(obs float32[N*L], mask int8[N*A], seats int32[N]) */
static PyObject *Batch_observe(Batch *self, PyObject *args) {
    Py_buffer obs, mask, seats;
    if (!PyArg_ParseTuple(args, "w*w*w*", &obs, &mask, &seats)) return NULL;
    int n = self->seats, length = R + 2 * n + 5 + 2 * n * R;
    PyObject *out = NULL;
    if (buffer_of(&obs, self->count * length, 4, "obs") || buffer_of(&mask, self->count * n * R, 1, "mask") ||
        buffer_of(&seats, self->count, 4, "seats"))
        goto done;
    for (Py_ssize_t i = 0; i < self->count; i++) {
        Game *g = &self->games[i];
        observe(self, g, (float *)obs.buf + i * length, (int8_t *)mask.buf + i * n * R);
        ((int32_t *)seats.buf)[i] = g->status == RUNNING ? g->seat : -1;
    }
    out = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&seats);
    return out;
}

/* step(actions int64[N], obs, mask, seats, rewards float32[N*seats], ended int8[N]): each
   running game takes its action; a game that ends writes its rewards and outcome and is dealt
   again from its next seed; then every game's observation is written. */
static PyObject *Batch_step(Batch *self, PyObject *args) {
    Py_buffer actions, obs, mask, seats, rewards, ended;
    if (!PyArg_ParseTuple(args, "y*w*w*w*w*w*", &actions, &obs, &mask, &seats, &rewards, &ended))
        return NULL;
    int n = self->seats, length = R + 2 * n + 5 + 2 * n * R;
    PyObject *out = NULL;
    Py_ssize_t N = self->count;
    if (buffer_of(&actions, N, 8, "actions") || buffer_of(&obs, N * length, 4, "obs") ||
        buffer_of(&mask, N * n * R, 1, "mask") || buffer_of(&seats, N, 4, "seats") ||
        buffer_of(&rewards, N * n, 4, "rewards") || buffer_of(&ended, N, 1, "ended"))
        goto done;
    const int64_t *chosen = actions.buf;
    for (Py_ssize_t i = 0; i < N; i++) {
        Game *g = &self->games[i];
        float *reward = (float *)rewards.buf + i * n;
        int status = act(self, g, (long)chosen[i]);
        ((int8_t *)ended.buf)[i] = (int8_t)status;
        if (status != RUNNING) {
            rewards_of(self, g, reward);
            uint64_t seed = g->next_seed;
            g->next_seed += g->stride;
            deal(self, g, seed);
        } else {
            memset(reward, 0, (size_t)n * sizeof(float));
        }
        observe(self, g, (float *)obs.buf + i * length, (int8_t *)mask.buf + i * n * R);
        ((int32_t *)seats.buf)[i] = g->status == RUNNING ? g->seat : -1;
    }
    out = finished(0);
done:
    PyBuffer_Release(&actions);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&seats);
    PyBuffer_Release(&rewards);
    PyBuffer_Release(&ended);
    return out;
}

/* sample(actions int64[N]): a random valid ask for each running game (-1 for one that ended). */
static PyObject *Batch_sample(Batch *self, PyObject *args) {
    Py_buffer actions;
    if (!PyArg_ParseTuple(args, "w*", &actions)) return NULL;
    PyObject *out = NULL;
    if (buffer_of(&actions, self->count, 8, "actions")) goto done;
    for (Py_ssize_t i = 0; i < self->count; i++) {
        Game *g = &self->games[i];
        ((int64_t *)actions.buf)[i] = g->status == RUNNING ? random_ask(self, g) : -1;
    }
    out = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&actions);
    return out;
}

/* run(games, first_seed) -> (games, asks): whole games with random valid asks, dealt from
   seeds first_seed, first_seed + 1, ... on game 0's slot (what a rollout costs). */
static PyObject *Batch_run(Batch *self, PyObject *args) {
    long long games;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "LK", &games, &seed)) return NULL;
    Game *g = &self->games[0];
    long long asks = 0;
    for (long long k = 0; k < games; k++) {
        int status = deal(self, g, seed + (unsigned long long)k);
        while (status == RUNNING) {
            status = act(self, g, random_ask(self, g));
            asks++;
        }
    }
    if (out_of_memory) return finished(0);
    return Py_BuildValue("LL", games, asks);
}

static PyObject *int_list(const int32_t *values, int count) {
    PyObject *list = PyList_New(count);
    if (!list) return NULL;
    for (int i = 0; i < count; i++) PyList_SET_ITEM(list, i, PyLong_FromLong(values[i]));
    return list;
}

static PyObject *Batch_events(Batch *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i)) return NULL;
    Game *g = game_at(self, i);
    if (!g) return NULL;
    Py_ssize_t count = g->events_len / EVENT_INTS;
    PyObject *list = PyList_New(count);
    if (!list) return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        const int32_t *rec = g->events + k * EVENT_INTS;
        PyObject *item = Py_BuildValue("(iiiiiiii)", rec[0], rec[1], rec[2], rec[3], rec[4],
                                       rec[5], rec[6], rec[7]);
        if (!item) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, item);
    }
    return list;
}

/* state(i) -> (status, seat, books, hands, pond, sent) */
static PyObject *Batch_state(Batch *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i)) return NULL;
    Game *g = game_at(self, i);
    if (!g) return NULL;
    int n = self->seats;
    PyObject *hands = PyList_New(n);
    if (!hands) return NULL;
    for (int s = 0; s < n; s++) {
        int32_t row[64 * 56];
        for (int k = 0; k < g->held[s]; k++) row[k] = HAND(self, g, s)[k];
        PyList_SET_ITEM(hands, s, int_list(row, g->held[s]));
    }
    int32_t pond[64 * 56];
    for (int k = 0; k < g->pond_len; k++) pond[k] = g->pond[k];
    return Py_BuildValue("(iiNNNi)", g->status, g->seat, int_list(g->books, n), hands,
                         int_list(pond, g->pond_len), g->sent);
}

static PyMethodDef Batch_methods[] = {
    {"reset", (PyCFunction)Batch_reset, METH_VARARGS, "reset(i, seed, stride=0) -> status"},
    {"act", (PyCFunction)Batch_act, METH_VARARGS, "act(i, action) -> status"},
    {"play_out", (PyCFunction)Batch_play_out, METH_VARARGS, "play_out(i) -> status"},
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS, "observe(obs, mask, seats)"},
    {"step", (PyCFunction)Batch_step, METH_VARARGS,
     "step(actions, obs, mask, seats, rewards, ended)"},
    {"sample", (PyCFunction)Batch_sample, METH_VARARGS, "sample(actions)"},
    {"run", (PyCFunction)Batch_run, METH_VARARGS, "run(games, first_seed) -> (games, asks)"},
    {"events", (PyCFunction)Batch_events, METH_VARARGS, "events(i) -> [(kind, at, seat, ...)]"},
    {"state", (PyCFunction)Batch_state, METH_VARARGS,
     "state(i) -> (status, seat, books, hands, pond, sent)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "arena.core._core.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "N games of Go Fish stepped at once (arena/core/__init__.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Batch_init,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", NULL, -1, module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    if (PyType_Ready(&BatchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObject(m, "Batch", Py_NewRef((PyObject *)&BatchType)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
