/* The echo service: TCP listeners and their clients, handled inline on the loop thread with
 * non-blocking sockets, as a shard handles packets. A client sends lines and gets each line
 * back as it completes.
 *
 * Work per wake-up is bounded (a few accepts, a few reads per client), as the real loop's
 * drains are; what is left over keeps the loop awake (net_idle() is false). */
#ifndef REFSHARD_NET_H
#define REFSHARD_NET_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "settings.h"
#include "waitset.h"

struct net_sock; /* a listener or a client; the wait set's tag for its descriptor */

struct net {
    struct waitset *ws;
    struct net_sock *listeners[SETTINGS_LISTENERS_MAX];
    unsigned n_listeners;
    struct net_sock *clients; /* list */
    unsigned n_clients;
};

void net_init(struct net *n, struct waitset *ws);
/* Listen on host:port (port 0: any free port) and give back the bound "host:port" in
 * bound[len]. */
int net_listen(struct net *n, const struct settings_listener *l, char *bound, size_t len,
               struct rs_error *err);
/* Handle one wait-set event whose tag belongs to n. Returns true when a drain stopped at its
 * bound with work left. */
bool net_handle(struct net *n, void *tag, unsigned flags);
/* Close every socket and free them. */
void net_release(struct net *n);

#endif
