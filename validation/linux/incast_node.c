// SPDX-License-Identifier: Apache-2.0
// The barrier-synchronized incast on real sockets, for validation/linux/differential.py (which runs it in network
// namespaces). One program, two roles:
//   server PORT SRU CC          accepts connections; for each 4-byte request writes SRU bytes (TCP_NODELAY, CC set
//                               with TCP_CONGESTION); one connection at a time, served until the client closes it
//   client SECONDS SRU ADDR:PORT...  connects to every server, then runs rounds: a request to every server, back to
//                               back, and the next round once every server's SRU has arrived; prints one JSON line
//                               (rounds, bytes, seconds, round times in us) after SECONDS
//   rtt COUNT ADDR:PORT         TCP ping-pong of 4 bytes with a server (request 0), COUNT times: the base RTT
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char* what) {
    perror(what);
    exit(1);
}

static int serve(int port, long sru, const char* cc) {
    signal(SIGPIPE, SIG_IGN);   // a client that leaves in the middle of an SRU: the write fails, the next comes
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = INADDR_ANY};
    if (bind(ls, (struct sockaddr*)&a, sizeof a) || listen(ls, 4))
        die("bind/listen");
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    for (;;) {
        int s = accept(ls, NULL, NULL);
        if (s < 0)
            die("accept");
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)))
            die("TCP_CONGESTION");
        uint32_t req;
        for (;;) {
            ssize_t got = 0;
            while (got < (ssize_t)sizeof req) {
                ssize_t r = read(s, (char*)&req + got, sizeof req - (size_t)got);
                if (r <= 0)
                    goto closed;
                got += r;
            }
            if (req == 0) {   // a ping: 4 bytes back
                if (write(s, &req, sizeof req) != (ssize_t)sizeof req)
                    goto closed;
                continue;
            }
            // the first 8 bytes of the SRU: when the request was read (CLOCK_MONOTONIC, shared by the namespaces),
            // so that the client can tell how long each server took to start answering
            const double t = now_s();
            memcpy(buf, &t, sizeof t);
            long left = sru;
            while (left > 0) {
                ssize_t w = write(s, buf, (size_t)(left < (long)sizeof buf ? left : (long)sizeof buf));
                if (w <= 0)
                    goto closed;
                left -= w;
            }
        }
    closed:
        close(s);
    }
    return 0;
}

static int client(double seconds, int n, char** targets, long sru) {
    int* fd = calloc((size_t)n, sizeof(int));
    long* got = calloc((size_t)n, sizeof(long));
    char(*head)[8] = calloc((size_t)n, 8);   // each response's first 8 bytes: the server's stamp
    struct pollfd* p = calloc((size_t)n, sizeof(struct pollfd));
    int one = 1;
    for (int i = 0; i < n; ++i) {
        char host[64];
        int port;
        if (sscanf(targets[i], "%63[^:]:%d", host, &port) != 2)
            die("target");
        fd[i] = socket(AF_INET, SOCK_STREAM, 0);   // (receive buffer: Linux's autotuning)
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        inet_pton(AF_INET, host, &a.sin_addr);
        if (connect(fd[i], (struct sockaddr*)&a, sizeof a))
            die("connect");
        setsockopt(fd[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        p[i].fd = fd[i];
        p[i].events = POLLIN;
    }
    static char buf[1 << 16];
    long rounds = 0, bytes = 0;
    size_t cap = 1 << 16, nt = 0, ns = 0, scap = 1 << 16;
    double* times = malloc(cap * sizeof(double));
    double* starts = malloc(scap * sizeof(double));   // request sent -> the server read it, us
    const double t0 = now_s(), end = t0 + seconds;
    double t = t0;
    while (t < end) {
        const double start = t;
        uint32_t req = (uint32_t)sru;
        for (int i = 0; i < n; ++i) {
            got[i] = 0;
            if (write(fd[i], &req, sizeof req) != (ssize_t)sizeof req)
                die("request");
        }
        int done = 0;
        while (done < n && t < end) {
            int k = poll(p, (nfds_t)n, 10);
            if (k < 0 && errno != EINTR)
                die("poll");
            for (int i = 0; i < n && k > 0; ++i) {
                if (!(p[i].revents & POLLIN) || got[i] >= sru)
                    continue;
                ssize_t r = read(fd[i], buf, sizeof buf);
                if (r <= 0)
                    die("read");
                for (ssize_t k = 0; k < r && got[i] + k < 8; ++k)
                    head[i][got[i] + k] = buf[k];
                if (got[i] < 8 && got[i] + r >= 8) {
                    double stamp;
                    memcpy(&stamp, head[i], sizeof stamp);
                    if (ns == scap)
                        starts = realloc(starts, (scap *= 2) * sizeof(double));
                    starts[ns++] = (stamp - start) * 1e6;
                }
                got[i] += r;
                bytes += r;
                if (got[i] >= sru)
                    ++done;
            }
            t = now_s();
        }
        if (done == n) {
            ++rounds;
            if (nt == cap)
                times = realloc(times, (cap *= 2) * sizeof(double));
            times[nt++] = (t - start) * 1e6;
        }
    }
    printf("{\"rounds\": %ld, \"bytes\": %ld, \"seconds\": %.6f, \"round_us\": [", rounds, bytes, t - t0);
    for (size_t i = 0; i < nt; ++i)
        printf("%s%.1f", i ? ", " : "", times[i]);
    printf("], \"start_us\": [");
    for (size_t i = 0; i < ns; ++i)
        printf("%s%.1f", i ? ", " : "", starts[i]);
    printf("]}\n");
    return 0;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

// TCP ping-pong: 4 bytes each way, `count` times; prints the round trips' min, p10, p50, p90, p99 in us.
static int rtt(int count, const char* target) {
    char host[64];
    int port, one = 1;
    if (sscanf(target, "%63[^:]:%d", host, &port) != 2)
        die("target");
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(fd, (struct sockaddr*)&a, sizeof a))
        die("connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    double* v = malloc((size_t)count * sizeof(double));
    for (int i = 0; i < count; ++i) {
        uint32_t req = 0;
        const double t = now_s();
        if (write(fd, &req, sizeof req) != (ssize_t)sizeof req)
            die("ping");
        ssize_t got = 0;
        while (got < (ssize_t)sizeof req) {
            ssize_t r = read(fd, (char*)&req + got, sizeof req - (size_t)got);
            if (r <= 0)
                die("pong");
            got += r;
        }
        v[i] = (now_s() - t) * 1e6;
        usleep(200);
    }
    qsort(v, (size_t)count, sizeof(double), cmp_double);
    printf("{\"min\": %.1f, \"p10\": %.1f, \"p50\": %.1f, \"p90\": %.1f, \"p99\": %.1f}\n", v[0], v[count / 10],
           v[count / 2], v[count * 9 / 10], v[count * 99 / 100]);
    return 0;
}

int main(int argc, char** argv) {
    if (argc >= 4 && !strcmp(argv[1], "rtt"))
        return rtt(atoi(argv[2]), argv[3]);
    if (argc >= 5 && !strcmp(argv[1], "server"))
        return serve(atoi(argv[2]), atol(argv[3]), argv[4]);
    if (argc >= 5 && !strcmp(argv[1], "client"))
        return client(atof(argv[2]), argc - 4, argv + 4, atol(argv[3]));
    fprintf(stderr, "usage: %s server PORT SRU CC | client SECONDS SRU ADDR:PORT... | rtt COUNT ADDR:PORT\n", argv[0]);
    return 2;
}
