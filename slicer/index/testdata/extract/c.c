#include <stdio.h>

#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct node {
    int value;
    struct node *next;
} node_t;

struct list {
    node_t *head;
};

enum color { RED, GREEN };

static int counter = 0;

int add(int a, int b) {
    return a + b;
}

static node_t *
make_node(int value)
{
    node_t *n = malloc(sizeof *n);
    n->value = value;
    return n;
}
