/* An example Go Fish bot in C99 with no libraries: copy it and make it yours.
 *
 *     make -C participants/examples        (or: cc -std=c99 -O2 -o most_held most_held.c)
 *     participants/examples/most_held
 *
 * In a config:  command = ["participants/examples/most_held"]
 *
 * It remembers who asked for what (a seat that asks for a rank holds it; a seat that hands a
 * rank over or says go fish has none of it), asks a seat known to hold one of its ranks, and
 * otherwise asks for the rank it holds most of, from the seat with the most cards. No
 * randomness, so it is deterministic. The protocol is in docs/protocol.md.
 *
 * The JSON handling is a small hand-rolled parser: enough for the arena's messages (objects,
 * arrays, numbers, strings, true/false/null), not a general-purpose library.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a minimal JSON tree ------------------------------------------------------------ */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

typedef struct JNode {
    JType type;
    double num;            /* J_NUM, J_BOOL */
    char *str;             /* J_STR */
    char *key;             /* set when this node is a member of an object */
    struct JNode *child;   /* first element / member */
    struct JNode *next;    /* next sibling */
} JNode;

static const char *at; /* parse position */

static void skip_space(void) {
    while (*at == ' ' || *at == '\t' || *at == '\r' || *at == '\n') at++;
}

static JNode *new_node(JType type) {
    JNode *node = calloc(1, sizeof *node);
    if (!node) { perror("calloc"); exit(1); }
    node->type = type;
    return node;
}

static void free_node(JNode *node) {
    while (node) {
        JNode *next = node->next;
        free_node(node->child);
        free(node->str);
        free(node->key);
        free(node);
        node = next;
    }
}

static char *parse_string(void) { /* at points past the opening quote */
    size_t cap = 16, len = 0;
    char *out = malloc(cap);
    while (*at && *at != '"') {
        char c = *at++;
        if (c == '\\') {
            c = *at++;
            switch (c) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': /* names and card glyphs only: keep a placeholder */
                for (int i = 0; i < 4 && *at; i++) at++;
                c = '?';
                break;
            default: break; /* \" \\ \/ */
            }
        }
        if (len + 2 > cap) out = realloc(out, cap *= 2);
        out[len++] = c;
    }
    if (*at == '"') at++;
    out[len] = '\0';
    return out;
}

static JNode *parse_value(void) {
    skip_space();
    if (*at == '{' || *at == '[') {
        int object = *at++ == '{';
        JNode *node = new_node(object ? J_OBJ : J_ARR), **tail = &node->child;
        skip_space();
        while (*at && *at != (object ? '}' : ']')) {
            char *key = NULL;
            if (object) {
                skip_space();
                if (*at++ != '"') break;
                key = parse_string();
                skip_space();
                if (*at == ':') at++;
            }
            JNode *item = parse_value();
            item->key = key;
            *tail = item;
            tail = &item->next;
            skip_space();
            if (*at == ',') at++;
            skip_space();
        }
        if (*at) at++;
        return node;
    }
    if (*at == '"') {
        at++;
        JNode *node = new_node(J_STR);
        node->str = parse_string();
        return node;
    }
    if (strncmp(at, "true", 4) == 0 || strncmp(at, "false", 5) == 0) {
        JNode *node = new_node(J_BOOL);
        node->num = *at == 't';
        at += *at == 't' ? 4 : 5;
        return node;
    }
    if (strncmp(at, "null", 4) == 0) {
        at += 4;
        return new_node(J_NULL);
    }
    JNode *node = new_node(J_NUM);
    char *end;
    node->num = strtod(at, &end);
    at = end > at ? end : at + 1; /* never stall on a stray character */
    return node;
}

static JNode *get(const JNode *object, const char *key) {
    if (!object || object->type != J_OBJ) return NULL;
    for (JNode *m = object->child; m; m = m->next)
        if (strcmp(m->key, key) == 0) return m;
    return NULL;
}

static int number(const JNode *node, int fallback) {
    return node && node->type == J_NUM ? (int)node->num : fallback;
}

static int length(const JNode *array) {
    int n = 0;
    if (array && array->type == J_ARR)
        for (JNode *e = array->child; e; e = e->next) n++;
    return n;
}

/* ---- the bot ------------------------------------------------------------------------ */

#define MAX_SEATS 64
#define RANKS 14

typedef struct { int id, rank; } Card;

static int my_seat = 0;
static Card *hand = NULL;
static int hand_size = 0;
static unsigned char holds[MAX_SEATS][RANKS]; /* seat s is known to hold rank r */

static void read_hand(const JNode *cards) { /* every message with a hand carries all of it */
    hand_size = length(cards);
    hand = realloc(hand, sizeof *hand * (hand_size + 1));
    int i = 0;
    for (JNode *c = cards->child; c; c = c->next, i++) {
        hand[i].id = number(get(c, "id"), -1);
        hand[i].rank = number(get(c, "rank"), 0);
    }
}

static int card_of_rank(int rank) { /* asking uses a card id from our hand, never the rank */
    for (int i = 0; i < hand_size; i++)
        if (hand[i].rank == rank) return hand[i].id;
    return -1;
}

static void ask(const JNode *sizes_node) {
    int seats = length(sizes_node), sizes[MAX_SEATS], mine[RANKS] = {0};
    if (seats > MAX_SEATS) seats = MAX_SEATS;
    JNode *e = sizes_node ? sizes_node->child : NULL;
    for (int s = 0; s < seats; s++, e = e->next) sizes[s] = number(e, -1); /* ours is null */
    for (int i = 0; i < hand_size; i++)
        if (hand[i].rank >= 0 && hand[i].rank < RANKS) mine[hand[i].rank]++;

    int target = -1, rank = -1;
    for (int s = 0; s < seats && rank < 0; s++) {
        if (s == my_seat || sizes[s] <= 0) continue;
        for (int r = 0; r < RANKS; r++)
            if (mine[r] && holds[s][r]) { target = s; rank = r; break; }
    }
    if (rank < 0) {
        for (int r = 0; r < RANKS; r++)
            if (mine[r] && (rank < 0 || mine[r] > mine[rank])) rank = r; /* lowest most held */
        for (int s = 0; s < seats; s++)
            if (s != my_seat && (target < 0 || sizes[s] > sizes[target])) target = s;
    }
    printf("{\"player\": %d, \"cardId\": %d}\n", target, card_of_rank(rank));
}

static int reply(const JNode *message) { /* prints the reply; returns 1 at the match's end */
    const JNode *type = get(message, "type"), *cards = get(message, "hand");
    const char *kind = type && type->type == J_STR ? type->str : "";
    if (cards && cards->type == J_ARR) read_hand(cards);
    if (strcmp(kind, "init") == 0) {
        my_seat = number(get(message, "seat"), 0);
        memset(holds, 0, sizeof holds); /* a new match: forget the last one */
    } else if (strcmp(kind, "hand-update") == 0) {
        int asker = number(get(message, "askingPlayer"), -1);
        int asked = number(get(message, "playerAsked"), -1);
        int rank = number(get(get(message, "card"), "rank"), -1);
        if (rank >= 0 && rank < RANKS && asker >= 0 && asker < MAX_SEATS && asked >= 0 &&
            asked < MAX_SEATS) {
            holds[asker][rank] = 1;
            holds[asked][rank] = 0;
        }
    } else if (strcmp(kind, "ask") == 0) {
        ask(get(message, "opponentsHandSizes"));
        return 0;
    } else if (strcmp(kind, "go-fish") == 0 || strcmp(kind, "pick-up") == 0) {
        printf("0\n"); /* the pond is face down: any index is as good as another */
        return 0;
    }
    printf("null\n"); /* informational and unknown messages still need a reply */
    return strcmp(kind, "match-end") == 0;
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        at = line;
        skip_space();
        if (!*at) continue;
        JNode *message = parse_value();
        int over = reply(message);
        fflush(stdout); /* stdout to a pipe is fully buffered: flush every reply */
        free_node(message);
        if (over) break;
    }
    free(line);
    free(hand);
    return 0;
}
