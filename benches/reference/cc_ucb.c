/* The reference C implementation of CC-UCB (unknown costs, Bernoulli costs) on i.i.d.
 * channels, with the oracle's realised reward on the same paths: the same semantics and the
 * same counter-based random numbers as specprobe's engine and benches/handwritten.rs, so that
 * all three compute the same numbers bit for bit and their times compare like with like.
 *
 *   cc -O2 -o cc_ucb benches/reference/cc_ucb.c -lm
 *   ./cc_ucb K HORIZON SEED       (K = 6: Figure 1(a); other K: the benches' spread instance)
 *
 * Prints the pseudo-regret, the net reward and the realised regret, as %.17g.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t GAMMA = 0x9e3779b97f4a7c15ULL;

static uint64_t splitmix64(uint64_t x) {
    uint64_t z = x + GAMMA;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint64_t run_key(uint64_t seed, uint64_t domain, uint64_t run) {
    return splitmix64(splitmix64(splitmix64(seed ^ 0x63726e5f6b657973ULL) ^ domain) ^ run);
}
static uint64_t channel_key(uint64_t key, uint64_t ch, uint64_t purpose) {
    return splitmix64(key ^ splitmix64(ch << 3 | purpose));
}
static uint64_t bits(uint64_t key, uint64_t t) { return splitmix64(key + t * GAMMA); }
static uint64_t threshold(double p) {
    if (p >= 1.0) return UINT64_MAX;
    if (p <= 0.0) return 0;
    return (uint64_t)(p * 18446744073709551616.0);
}
static int bernoulli(uint64_t b, uint64_t thr) { return thr == UINT64_MAX || b < thr; }

static double *g_key;
static int by_key(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (g_key[i] > g_key[j]) return -1;
    if (g_key[i] < g_key[j]) return 1;
    return (i > j) - (i < j);
}

static double value(const size_t *list, size_t len, const double *theta, const double *cost) {
    double reach = 1.0, total = 0.0;
    for (size_t j = 0; j < len; j++) {
        size_t i = list[j];
        total += (theta[i] - cost[i]) * reach;
        reach *= 1.0 - theta[i];
        if (reach < 2.2250738585072014e-308) break;
    }
    return total;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: cc_ucb K HORIZON SEED\n");
        return 2;
    }
    size_t k = strtoull(argv[1], 0, 10);
    uint64_t horizon = strtoull(argv[2], 0, 10), seed = strtoull(argv[3], 0, 10);
    double alpha = 1.5, eps = 1e-5;
    double *theta = malloc(k * sizeof *theta), *cost = malloc(k * sizeof *cost);
    for (size_t i = 0; i < k; i++) {
        if (k == 6) {
            theta[i] = 0.8 - 0.1 * (double)i;
            cost[i] = 0.55;
        } else {
            theta[i] = 0.1 + 0.8 * (double)((i * 7919) % k) / (double)k;
            cost[i] = 0.4;
        }
    }
    if (k == 6) { /* the exact decimal values of Figure 1(a) */
        double t6[6] = {0.8, 0.7, 0.6, 0.5, 0.4, 0.3};
        memcpy(theta, t6, sizeof t6);
    }
    uint64_t key = run_key(seed, 0, 0);
    uint64_t *idle_key = malloc(k * 8), *cost_key = malloc(k * 8), *idle = malloc(k * 8),
             *pay = malloc(k * 8), *n = calloc(k, 8), *idles = calloc(k, 8), *seen_t = calloc(k, 8);
    double *paid = calloc(k, 8), *th = calloc(k, 8), *ch = calloc(k, 8), *inv = malloc(k * 8),
           *keys = calloc(k, 8), *seen_y = calloc(k, 8);
    int *seen_x = calloc(k, sizeof(int));
    size_t *list = malloc(k * sizeof *list), *opt = malloc(k * sizeof *opt), len = 0, opt_len = 0;
    for (size_t i = 0; i < k; i++) {
        idle_key[i] = channel_key(key, i, 1);
        cost_key[i] = channel_key(key, i, 2);
        idle[i] = threshold(theta[i]);
        pay[i] = threshold(cost[i]);
        inv[i] = INFINITY;
        if (theta[i] > cost[i]) opt[opt_len++] = i;
    }
    /* UCR-T1: decreasing θ/c (as θ_b·c_a against θ_a·c_b), ties by index. */
    for (size_t a = 1; a < opt_len; a++)
        for (size_t b = a; b > 0; b--) {
            size_t x = opt[b - 1], y = opt[b];
            double l = theta[y] * cost[x], r = theta[x] * cost[y];
            if (l > r || (l == r && y < x)) {
                opt[b - 1] = y;
                opt[b] = x;
            } else break;
        }
    double best = value(opt, opt_len, theta, cost), regret = 0, reward = 0, oracle = 0;
    g_key = keys;
    for (uint64_t t = 1; t <= horizon; t++) {
        len = 0;
        if (t <= k) list[len++] = t - 1;
        else {
            double s = sqrt(alpha * log((double)t));
            for (size_t i = 0; i < k; i++) {
                double u = s * inv[i], lower = ch[i] - u;
                double ratio = (th[i] + u) / (lower > eps ? lower : eps);
                if (ratio > 1.0) {
                    keys[i] = ratio;
                    list[len++] = i;
                }
            }
            qsort(list, len, sizeof *list, by_key);
        }
        double net = 0.0;
        for (size_t j = 0; j < len; j++) {
            size_t i = list[j];
            int x = bernoulli(bits(idle_key[i], t), idle[i]);
            double y = bernoulli(bits(cost_key[i], t), pay[i]) ? 1.0 : 0.0;
            seen_t[i] = t;
            seen_x[i] = x;
            seen_y[i] = y;
            n[i] += 1;
            idles[i] += (uint64_t)x;
            paid[i] += y;
            double nf = (double)n[i];
            th[i] = (double)idles[i] / nf;
            ch[i] = paid[i] / nf;
            inv[i] = 1.0 / sqrt(nf);
            net -= y;
            if (x) {
                net += 1.0;
                break;
            }
        }
        double spent = 0.0;
        int found = 0;
        for (size_t j = 0; j < opt_len; j++) {
            size_t i = opt[j];
            int x;
            double y;
            if (seen_t[i] == t) {
                x = seen_x[i];
                y = seen_y[i];
            } else {
                x = bernoulli(bits(idle_key[i], t), idle[i]);
                y = bernoulli(bits(cost_key[i], t), pay[i]) ? 1.0 : 0.0;
            }
            spent += y;
            if (x) {
                found = 1;
                break;
            }
        }
        oracle += (found ? 1.0 : 0.0) - spent;
        regret += best - value(list, len, theta, cost);
        reward += net;
    }
    printf("%.17g %.17g %.17g\n", regret, reward, oracle - reward);
    return 0;
}
