/*
 * Runs box.elf on a simulated ATmega328P (simavr) with its UART on a pseudo-terminal, so the host
 * code talks to the real firmware exactly as to a box on /dev/ttyACM0.
 *
 *   simbox box.elf [BOOTS]    prints "READY <pty>" (also linked as /tmp/simavr-uart0)
 *
 * simavr does not keep the EEPROM between runs; BOOTS preloads the power-up counter (EEPROM bytes
 * 4..5) so a restarted box reports a new boot count, as a real one would.
 *
 * Buttons are driven from stdin, one command per line (the side channel of the tests):
 *   press N      hold button N (0..11) down for 60 ms of simulated time, then release
 *                (presses of one button are queued 40 ms apart, never merged)
 *   bounce N     a bouncy press: 5 ms contact chatter, then a 60 ms press (debounce must ignore
 *                the chatter and count one press)
 *   quit         stop
 * LED changes are printed as "LED <green|yellow|red> <0|1>". Simulated time is held to wall-clock
 * time, so the firmware's 1 s heartbeat is a real second.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_time.h"
#include "avr_eeprom.h"
#include "avr_ioport.h"
#include "uart_pty.h"

static avr_t *avr;
static uart_pty_t uart_pty;
static avr_irq_t *buttons[12];
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

static avr_cycle_count_t chatter_step(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)when;
    static int steps;
    intptr_t n = (intptr_t)param;
    if (steps < 10) {               /* 10 toggles 0.5 ms apart: contact bounce */
        avr_raise_irq(buttons[n], steps & 1);
        steps++;
        return when + avr_usec_to_cycles(a, 500);
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
        avr_cycle_timer_register(avr, book(n, 65000), chatter_step, (void *)(intptr_t)n);
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
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: simbox box.elf [BOOTS]\n");
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

    uart_pty_init(avr, &uart_pty);
    uart_pty_connect(&uart_pty, '0');
    printf("READY %s\n", uart_pty.pty.slavename);
    fflush(stdout);

    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    char line[128];
    size_t len = 0;
    double t0 = wall();
    for (;;) {
        for (int i = 0; i < 2000; i++) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "simbox: firmware stopped (state %d)\n", state);
                return 1;
            }
        }
        /* hold simulated time to wall-clock time */
        double ahead = (double)avr->cycle / avr->frequency - (wall() - t0);
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
