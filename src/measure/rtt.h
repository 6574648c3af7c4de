/* The rtt probe: open-loop request/reply round trips against a TCP server.
 *
 * Schedule. Request k is due at start + k / rate, fixed in advance, and goes to
 * connection k mod connections (round-robin). It is written at its due time whether or
 * not earlier requests on that connection have been answered: requests are pipelined,
 * and the replies of a connection are matched to its requests in order (a byte stream
 * protocol answering in order, as a line echo does). Its round trip is measured from
 * its DUE time to the moment the last byte of its reply is read, on the monotonic
 * clock. Measuring from the due time, not from the actual write, is what avoids
 * coordinated omission: when the server stalls, every request scheduled during the
 * stall carries the wait it would have seen, not only the first one. The probe's own
 * lateness in writing (due time -> first byte written) is recorded apart, in `lag`, so
 * a late probe thread is not mistaken for a slow server: it is included in the round
 * trips and can be read next to them.
 *
 * Fate of a request. Each request that came due ends one way: completed (its reply
 * recorded in `rtt`), error, timeout, or unfinished when the probe stops:
 *     scheduled == completed + errors + timeouts + unfinished.
 * - A timeout is a request without its full reply timeout_s after its due time. The
 *   connection it was written on is then closed and opened again at once; the other
 *   requests written on it also count as timeouts (their replies would queue behind the
 *   late one). A request not yet written when its time runs out (its connection was
 *   down, or the server was not reading) is a timeout too.
 * - An error is a request written on a connection that then failed: reset, end of file,
 *   or reply bytes other than the expected ones. Such a failure (and every failed
 *   reconnect) is counted once in connection_failures; the connection is reopened after
 *   RTT_RETRY_MS so that a dead server does not make the probe spin. Requests due on it
 *   meanwhile wait, and are written once it is back (or time out).
 *
 * Connection setup (optional, connect_rate_per_s > 0). On a schedule of its own,
 * connection-setup probe j is due at start + (j + 1/2) / connect_rate_per_s: it opens a
 * fresh connection, writes one request, and records due time -> full reply in `setup`
 * (so it includes the TCP handshake and the server's accept, the path a server's idle
 * sleep can delay), then closes it. Its outcomes are counted apart, in `setups`.
 *
 * Thread and signals. rtt_start connects every connection (blocking for at most
 * timeout_s each; immediate on loopback) and starts one thread, created with every
 * signal blocked, so that SIGINT and friends keep going to the caller's signalfd. The
 * thread waits in ppoll() with nanosecond deadlines and asks for 1 ns of timer slack
 * (Linux's default 50 us would be added to every round trip); it allocates nothing
 * after rtt_start. Its CPU time, read from its own thread CPU clock when it ends, is
 * reported in probe_cpu_ns: loopbench's cost, not the target's. Platform: POSIX with
 * ppoll and MSG_NOSIGNAL (Linux, the BSDs; not macOS); the timer slack is Linux only. */
#ifndef LOOPBENCH_RTT_H
#define LOOPBENCH_RTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "probes.h"

#define RTT_RETRY_MS 100
struct rtt_probe;

/* Check opts (rtt_check), connect, start the thread; the schedule starts when this returns. On
 * error (bad option, unresolvable host, refused or timed-out connect: the message
 * names host:port) returns -1 and nothing is left running. */
int rtt_start(const struct rtt_opts *opts, struct rtt_probe **out, struct lb_error *err);
/* Stop the thread, close everything, free the probe and fill *out (which then owns
 * the histograms: rtt_result_release). Never fails. */
void rtt_stop(struct rtt_probe *p, struct rtt_result *out);

#endif
