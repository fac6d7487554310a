// SPDX-License-Identifier: Apache-2.0
// Flows on real sockets from a schedule, for validation/linux/host_egress.py (which runs it in network namespaces).
// Each flow is a TCP connection of its own, as the model's workload makes one per flow. One program, two roles:
//   server PORT                  accepts connections; a connection carries a 16-byte header (the sender's clock at
//                                its first write, the flow's size in bytes, header included) and then the rest of
//                                the flow; at end of file prints "t0_ns t1_ns size" (t1: this clock at the last byte)
//   client SCHEDULE EPOCH_NS CC PACING
//                                the flows of SCHEDULE (lines "start_us addr port size"), each started at EPOCH_NS +
//                                start_us on CLOCK_MONOTONIC (namespaces share it): connect, then the header and the
//                                bytes as fast as the socket takes them, then close. CC is the congestion control
//                                (TCP_CONGESTION); PACING 1 sets SO_MAX_PACING_RATE to unlimited, which turns on
//                                the kernel's own TCP pacing at its pacing rate (what fq's departure times do) on a
//                                device without fq; 0 leaves it off. TCP_NODELAY on every socket (no Nagle: the
//                                model has none). Runs until every flow is written or it is killed.
// The flow completion time is t1 - t0: from the first write after the handshake to the last byte's arrival.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 8192

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void die(const char* what) {
    perror(what);
    exit(1);
}

static void nonblocking(int s) {
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
}

struct conn {
    uint64_t hdr[2];
    uint64_t got;   // bytes read, header included
};

__attribute__((noreturn)) static void serve(int port) {
    signal(SIGPIPE, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = INADDR_ANY};
    if (bind(ls, (struct sockaddr*)&a, sizeof a) || listen(ls, 1024))
        die("bind/listen");
    nonblocking(ls);
    static struct pollfd pf[MAX_FDS];
    static struct conn cs[MAX_FDS];
    static char buf[1 << 18];
    int n = 1;
    pf[0] = (struct pollfd){.fd = ls, .events = POLLIN};
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (;;) {
        if (poll(pf, (nfds_t)n, -1) < 0 && errno != EINTR)
            die("poll");
        if (pf[0].revents & POLLIN)
            for (int s; n < MAX_FDS && (s = accept(ls, NULL, NULL)) >= 0;) {
                nonblocking(s);
                pf[n] = (struct pollfd){.fd = s, .events = POLLIN};
                cs[n] = (struct conn){{0, 0}, 0};
                ++n;
            }
        for (int i = 1; i < n; ++i) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int done = 0;
            for (;;) {
                ssize_t r = read(pf[i].fd, buf, sizeof buf);
                if (r > 0) {
                    for (ssize_t k = 0; k < r && cs[i].got + (uint64_t)k < sizeof cs[i].hdr; ++k)
                        ((char*)cs[i].hdr)[cs[i].got + (uint64_t)k] = buf[k];
                    cs[i].got += (uint64_t)r;
                    continue;
                }
                if (r == 0 || (errno != EAGAIN && errno != EINTR))
                    done = 1;
                break;
            }
            if (done) {
                if (cs[i].got >= sizeof cs[i].hdr)
                    printf("%llu %llu %llu\n", (unsigned long long)cs[i].hdr[0], (unsigned long long)now_ns(),
                           (unsigned long long)cs[i].got);
                close(pf[i].fd);
                pf[i] = pf[n - 1];
                cs[i] = cs[n - 1];
                --n;
                --i;
            }
        }
    }
}

struct flow {
    uint64_t start_ns, size, sent;
    uint64_t hdr[2];   // the clock at the first write, the size
    struct sockaddr_in to;
    int fd, connected;
};

static int run_client(const char* schedule, uint64_t epoch, const char* cc, int pacing) {
    signal(SIGPIPE, SIG_IGN);
    FILE* f = fopen(schedule, "r");
    if (!f)
        die("schedule");
    size_t cap = 1024, nf = 0;
    struct flow* fl = malloc(cap * sizeof *fl);
    double start_us;
    char addr[64];
    int port;
    unsigned long long size;
    while (fscanf(f, "%lf %63s %d %llu", &start_us, addr, &port, &size) == 4) {
        if (nf == cap)
            fl = realloc(fl, (cap *= 2) * sizeof *fl);
        struct flow* x = &fl[nf++];
        memset(x, 0, sizeof *x);
        x->start_ns = epoch + (uint64_t)(start_us * 1e3);
        x->size = size < 16 ? 16 : size;
        x->to.sin_family = AF_INET;
        x->to.sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, addr, &x->to.sin_addr);
        x->fd = -1;
    }
    fclose(f);
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    static struct pollfd pf[MAX_FDS];
    static size_t who[MAX_FDS];
    size_t next = 0, done = 0;
    int one = 1;
    while (done < nf) {
        uint64_t t = now_ns();
        int n = 0;
        while (next < nf && fl[next].start_ns <= t) {   // start what is due
            struct flow* x = &fl[next++];
            x->fd = socket(AF_INET, SOCK_STREAM, 0);
            setsockopt(x->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            if (setsockopt(x->fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)))
                die("TCP_CONGESTION");
            if (pacing) {
                unsigned long rate = ~0UL;
                if (setsockopt(x->fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof rate))
                    die("SO_MAX_PACING_RATE");
            }
            nonblocking(x->fd);
            if (connect(x->fd, (struct sockaddr*)&x->to, sizeof x->to) && errno != EINPROGRESS)
                die("connect");
        }
        for (size_t i = 0; i < next && n < MAX_FDS; ++i)
            if (fl[i].fd >= 0) {
                pf[n] = (struct pollfd){.fd = fl[i].fd, .events = POLLOUT};
                who[n++] = i;
            }
        int wait_ms = next < nf ? (int)((fl[next].start_ns > t ? fl[next].start_ns - t : 0) / 1000000) : 100;
        if (poll(pf, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
            die("poll");
        for (int k = 0; k < n; ++k) {
            if (!pf[k].revents)
                continue;
            struct flow* x = &fl[who[k]];
            if (!x->connected) {
                int err = 0;
                socklen_t len = sizeof err;
                getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err) {
                    errno = err;
                    die("connect");
                }
                x->connected = 1;
                x->hdr[0] = now_ns();
                x->hdr[1] = x->size;
            }
            for (;;) {
                uint64_t left = x->size - x->sent;
                if (!left)
                    break;
                if (x->sent < 16) {   // the header first
                    ssize_t w = write(x->fd, (char*)x->hdr + x->sent, 16 - x->sent);
                    if (w <= 0)
                        break;
                    x->sent += (uint64_t)w;
                    continue;
                }
                ssize_t w = write(x->fd, buf, left < sizeof buf ? left : sizeof buf);
                if (w <= 0)
                    break;
                x->sent += (uint64_t)w;
            }
            if (x->sent == x->size) {
                close(x->fd);
                x->fd = -1;
                ++done;
            }
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && !strcmp(argv[1], "server"))
        serve(atoi(argv[2]));
    if (argc == 6 && !strcmp(argv[1], "client"))
        return run_client(argv[2], strtoull(argv[3], NULL, 10), argv[4], atoi(argv[5]));
    fprintf(stderr, "usage: flow_node server PORT | client SCHEDULE EPOCH_NS CC PACING\n");
    return 2;
}
