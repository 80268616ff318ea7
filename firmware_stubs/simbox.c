/*
 * Runs box.elf on a simulated ATmega328P (simavr) with its UART on a pseudo-terminal, so the host
 * code talks to the real firmware exactly as to a box on /dev/ttyACM0.
 *
 *   simbox [-l LINK] box.elf [BOOTS]    prints "READY <pty>" (and links it as LINK, if given)
 *
 * The UART is bridged to a pty of its own here rather than through simavr's uart_pty part, which
 * always links /tmp/simavr-uart0: with that fixed path two simulators (two test runs) collide.
 *
 * simavr does not keep the EEPROM between runs; BOOTS preloads the power-up counter (EEPROM bytes
 * 4..5) so a restarted box reports a new boot count, as a real one would.
 *
 * Buttons are driven from stdin, one command per line (the side channel of the tests):
 *   press N      hold button N (0..11) down for 60 ms of simulated time, then release
 *                (presses of one button are queued 40 ms apart, never merged)
 *   bounce N     a bouncy press: 25 ms of contact chatter (closed and open for 2..5 ms at a
 *                time, each a press to a box without debounce), then a 60 ms press (the
 *                debounce must count one press)
 *   reset        a power cycle with the port left open (the EEPROM keeps its boot count)
 *   reset-quiet  the same, but the power-up HELLO is lost on the line (noise)
 *   quit         stop
 * LED changes are printed as "LED <green|yellow|red> <0|1>". Simulated time is held to wall-clock
 * time, so the firmware's 1 s heartbeat is a real second.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"
#include "avr_eeprom.h"
#include "avr_ioport.h"
#include "avr_uart.h"

static avr_t *avr;
static avr_irq_t *buttons[12];
static int pty_master = -1;
static int uart_xon = 1;          /* the AVR's receive FIFO has room */
static int drop_until_zero;       /* reset-quiet: the power-up HELLO is lost on the line */
static avr_irq_t *uart_in;
static double sim_t0;             /* wall-clock time at simulated cycle 0 */
static double wall(void);

/* a byte the firmware sent: to the host, unless it is lost to "noise" */
static void uart_out(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)param;
    uint8_t b = value;
    if (drop_until_zero) {
        if (b == 0) drop_until_zero = 0;
        return;
    }
    if (write(pty_master, &b, 1) < 0 && errno != EAGAIN) perror("simbox: pty write");
}

static void uart_xon_changed(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq; (void)value;
    uart_xon = (intptr_t)param;
}

/* bytes from the host to the firmware, as fast as its receive FIFO takes them */
static void feed_uart(void) {
    uint8_t b;
    while (uart_xon && read(pty_master, &b, 1) == 1)
        avr_raise_irq(uart_in, b);
}

static const char *open_pty(const char *link) {
    static char name[64];
    int slave;
    struct termios tio;
    if (openpty(&pty_master, &slave, name, NULL, NULL) != 0) {
        perror("simbox: openpty");
        exit(1);
    }
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);                  /* no echo, no line editing before the host opens it */
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    if (link) {
        unlink(link);
        if (symlink(name, link) != 0) {
            perror("simbox: link");
            exit(1);
        }
    }
    return name;
}
static const char *led_names[3] = {"green", "yellow", "red"};

static avr_irq_t *button_irq(int n) {
    if (n < 6) return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2 + n);
    return avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), n - 6);
}

static void led_changed(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    printf("LED %s %u\n", led_names[(intptr_t)param], value ? 1 : 0);
    fflush(stdout);
}

static avr_cycle_count_t busy_until[12];   /* a button's last press ends (released) here */

static avr_cycle_count_t release(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a; (void)when;
    avr_raise_irq(buttons[(intptr_t)param], 1);
    return 0;
}

static avr_cycle_count_t push(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)when;
    avr_raise_irq(buttons[(intptr_t)param], 0);
    avr_cycle_timer_register_usec(a, 60000, release, param);
    return 0;
}

/* Presses of one button are queued: each waits until the previous one has been released for
   40 ms of simulated time, so two "press" lines never merge into one long press even when the
   simulator runs behind the wall clock. Returns the delay in cycles before this press starts. */
static avr_cycle_count_t book(int n, uint32_t length_usec) {
    avr_cycle_count_t now = avr->cycle, start = now;
    if (busy_until[n] + avr_usec_to_cycles(avr, 40000) > start)
        start = busy_until[n] + avr_usec_to_cycles(avr, 40000);
    busy_until[n] = start + avr_usec_to_cycles(avr, length_usec);
    return start - now + 1;
}

/* Contact bounce: closed/open for these many ms in turn. Each closed spell is longer than the
   firmware's 1 ms sampling, so a box without debounce would send a press for each of them. */
static const int chatter_ms[] = {3, 2, 4, 3, 5, 2, 3, 3};
#define CHATTER_STEPS (int)(sizeof chatter_ms / sizeof chatter_ms[0])

static avr_cycle_count_t chatter_step(avr_t *a, avr_cycle_count_t when, void *param) {
    static int steps;
    intptr_t n = (intptr_t)param;
    if (steps < CHATTER_STEPS) {
        avr_raise_irq(buttons[n], steps & 1);     /* 0 = closed (pulled low) */
        return when + avr_usec_to_cycles(a, 1000 * chatter_ms[steps++]);
    }
    steps = 0;
    avr_raise_irq(buttons[n], 0);
    avr_cycle_timer_register_usec(a, 60000, release, param);
    return 0;
}

static void command(char *line) {
    int n;
    if (sscanf(line, "press %d", &n) == 1 && n >= 0 && n < 12) {
        avr_cycle_timer_register(avr, book(n, 60000), push, (void *)(intptr_t)n);
    } else if (sscanf(line, "bounce %d", &n) == 1 && n >= 0 && n < 12) {
        avr_cycle_timer_register(avr, book(n, 85000), chatter_step, (void *)(intptr_t)n);
    } else if (strcmp(line, "reset") == 0 || strcmp(line, "reset-quiet") == 0) {
        drop_until_zero = strcmp(line, "reset-quiet") == 0;
        avr_reset(avr);                 /* registers and RAM; the EEPROM keeps its bytes */
        sim_t0 = wall() - (double)avr->cycle / avr->frequency;
        /* a press waits until the firmware has set its pins up (its pull-ups would undo it) */
        for (int i = 0; i < 12; i++) busy_until[i] = avr->cycle;
        for (int i = 0; i < 12; i++) {  /* the pin latches were cleared: released again */
            avr_raise_irq(buttons[i], 0);
            avr_raise_irq(buttons[i], 1);
        }
        printf("RESET\n");
        fflush(stdout);
    } else if (strncmp(line, "quit", 4) == 0) {
        exit(0);
    } else {
        printf("ERROR unknown command: %s\n", line);
        fflush(stdout);
    }
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const char *link = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "l:")) != -1) {
        if (opt == 'l') link = optarg;
        else return 2;
    }
    argc -= optind - 1;
    argv += optind - 1;
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: simbox [-l LINK] box.elf [BOOTS]\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "simbox: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "simbox: simavr has no atmega328p\n");
        return 1;
    }
    avr_init(avr);
    fw.frequency = 16000000;
    avr_load_firmware(avr, &fw);
    avr->log = LOG_ERROR;
    if (argc == 3) {
        unsigned boots = (unsigned)strtoul(argv[2], NULL, 0);
        uint8_t ee[2] = {boots & 0xFF, (boots >> 8) & 0xFF};   /* eeprom_read_word: little-endian */
        avr_eeprom_desc_t d = {.ee = ee, .offset = 4, .size = 2};
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
    }

    for (int i = 0; i < 12; i++) {
        buttons[i] = button_irq(i);
        avr_raise_irq(buttons[i], 1);     /* released: the pull-up holds the pin high */
    }
    for (intptr_t i = 0; i < 3; i++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), i),
                                led_changed, (void *)i);

    uint32_t flags = 0;               /* the UART's bytes go to the pty, not to the console */
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon_changed, (void *)1);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xon_changed, (void *)0);
    printf("READY %s\n", open_pty(link));
    fflush(stdout);

    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    char line[128];
    size_t len = 0;
    sim_t0 = wall();
    for (;;) {
        feed_uart();
        for (int i = 0; i < 2000; i++) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "simbox: firmware stopped (state %d)\n", state);
                return 1;
            }
        }
        /* hold simulated time to wall-clock time */
        double ahead = (double)avr->cycle / avr->frequency - (wall() - sim_t0);
        if (ahead > 0.002) usleep((useconds_t)(ahead * 1e6));
        struct pollfd pfd = {0, POLLIN, 0};
        if (poll(&pfd, 1, 0) > 0) {
            ssize_t r = read(0, line + len, sizeof line - 1 - len);
            if (r == 0) return 0;                  /* stdin closed: the test is done */
            if (r > 0) {
                len += r;
                line[len] = 0;
                char *nl;
                while ((nl = strchr(line, '\n'))) {
                    *nl = 0;
                    command(line);
                    memmove(line, nl + 1, len - (nl + 1 - line) + 1);
                    len -= nl + 1 - line;
                }
                if (len >= sizeof line - 1) len = 0;
            }
        }
    }
}
