/*
 * Vote box firmware for an ATmega328P (Arduino Uno/Nano class), speaking docs/protocol.md v1.
 *
 * Wiring: 12 buttons to GND on PD2..PD7 (buttons 0..5) and PB0..PB5 (buttons 6..11), internal
 * pull-ups; LEDs (to GND through resistors) green PC0, yellow PC1, red PC2. UART 115200 8N1 to the
 * USB-serial chip. The box id comes from EEPROM bytes 0..3 (big-endian) or, on an erased EEPROM,
 * from BOX_ID at build time. EEPROM bytes 4..5 count power-ups (the HELLO's boot field).
 *
 * The main loop runs once per millisecond tick (Timer0): debounce, retransmit, heartbeat, LEDs.
 * Received bytes are collected by the RX interrupt into a ring buffer and parsed in the loop.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <string.h>

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#define BAUD 115200
#define BAUD_TOL 3
#include <util/setbaud.h>

#ifndef BOX_ID
#define BOX_ID 0xA0000001UL
#endif
#define PROTOCOL_VERSION 1
#define FW_MAJOR 1
#define FW_MINOR 0
#define N_BUTTONS 12
#define DEBOUNCE_MS 20        /* a press counts after 20 ms of stable contact */
#define RETRY_MS 250          /* an unacknowledged press is sent again this often */
#define HEARTBEAT_MS 1000
#define MAX_FRAME 64

enum { HELLO = 0x01, PRESS = 0x02, HEARTBEAT = 0x03, WELCOME = 0x81, ACK = 0x82,
       VOTE_STATE = 0x83 };
enum { ACK_RECEIVED = 0, ACK_RECORDED = 1, ACK_IGNORED = 2, ACK_PAIRED = 3 };
enum { STATE_IDLE = 0, STATE_OPEN = 1, STATE_REVEALED = 2 };
enum { LED_OFF, LED_OPEN, LED_SENDING, LED_RECEIVED, LED_RECORDED, LED_IGNORED, LED_PAIRED,
       LED_REVEALED };

static volatile uint16_t ticks;           /* milliseconds, wraps */
static volatile uint8_t rx_buf[64];
static volatile uint8_t rx_head, rx_tail;

static uint32_t box_id;
static uint16_t seq, boot;
static uint8_t pending, pending_button;  /* a press waiting for its ACK */
static uint16_t pending_seq, pending_due;
static uint8_t led_mode, led_until_set;
static uint16_t led_until;               /* a short "ignored"/"paired" flash, then back */
static uint8_t led_after;

ISR(TIMER0_COMPA_vect) { ticks++; }

ISR(USART_RX_vect) {
    uint8_t b = UDR0, next = (rx_head + 1) & 63;
    if (next != rx_tail) { rx_buf[rx_head] = b; rx_head = next; }   /* full: drop, CRC will tell */
}

static uint16_t now(void) {
    uint16_t t;
    cli(); t = ticks; sei();
    return t;
}

static uint16_t crc16(const uint8_t *p, uint8_t n) {    /* CRC-16/CCITT-FALSE */
    uint16_t crc = 0xFFFF;
    while (n--) {
        crc ^= (uint16_t)(*p++) << 8;
        for (uint8_t i = 0; i < 8; i++) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1;
    }
    return crc;
}

static void uart_put(uint8_t b) {
    while (!(UCSR0A & _BV(UDRE0))) {}
    UDR0 = b;
}

/* COBS-encodes body+CRC straight to the UART, then the 0x00 delimiter. body must have room for
   the two CRC bytes after its n bytes. */
static void send_frame(uint8_t *body, uint8_t n) {
    uint16_t crc = crc16(body, n);
    body[n] = crc >> 8; body[n + 1] = crc & 0xFF; n += 2;
    uint8_t start = 0;
    while (start <= n) {
        uint8_t end = start;
        while (end < n && body[end] != 0 && end - start < 254) end++;
        uart_put(end - start + 1);
        for (uint8_t i = start; i < end; i++) uart_put(body[i]);
        start = end + 1;
        if (end == n) break;
    }
    uart_put(0);
}

static uint8_t header(uint8_t *b, uint8_t type) {
    seq++;
    b[0] = type;
    b[1] = box_id >> 24; b[2] = box_id >> 16; b[3] = box_id >> 8; b[4] = box_id;
    b[5] = seq >> 8; b[6] = seq;
    return 7;
}

static void send_hello(uint8_t reason) {
    uint8_t b[24], n = header(b, HELLO);
    b[n++] = PROTOCOL_VERSION; b[n++] = FW_MAJOR; b[n++] = FW_MINOR;
    b[n++] = 1; b[n++] = N_BUTTONS; b[n++] = reason;
    b[n++] = boot >> 8; b[n++] = boot;
    send_frame(b, n);
}

static void send_press(void) {
    uint8_t b[24], n = 0;
    b[n++] = PRESS;
    b[n++] = box_id >> 24; b[n++] = box_id >> 16; b[n++] = box_id >> 8; b[n++] = box_id;
    b[n++] = pending_seq >> 8; b[n++] = pending_seq;   /* a retry keeps its sequence number */
    b[n++] = 0; b[n++] = pending_button;
    send_frame(b, n);
}

static void send_heartbeat(void) {
    uint8_t b[24], n = header(b, HEARTBEAT);
    b[n++] = 0xFF;            /* no battery gauge on this board */
    b[n++] = pending;
    send_frame(b, n);
}

static void flash(uint8_t mode, uint8_t after, uint16_t ms) {
    led_mode = mode; led_after = after; led_until = now() + ms; led_until_set = 1;
}

static void show_leds(void) {
    uint16_t t = now();
    uint8_t blink = (t >> 7) & 1, g = 0, y = 0, r = 0;
    if (led_until_set && (int16_t)(t - led_until) >= 0) { led_mode = led_after; led_until_set = 0; }
    switch (led_mode) {
    case LED_OPEN: y = 1; break;
    case LED_SENDING: y = blink; break;
    case LED_RECEIVED: g = blink; break;
    case LED_RECORDED: g = 1; break;
    case LED_IGNORED: r = 1; break;
    case LED_PAIRED: g = 1; y = 1; break;
    case LED_REVEALED: g = 1; y = 1; r = 1; break;
    }
    PORTC = (PORTC & ~0x07) | (g ? 1 : 0) | (y ? 2 : 0) | (r ? 4 : 0);
}

static uint8_t vote_state = STATE_IDLE;

static void on_frame(uint8_t *raw, uint8_t n) {
    if (n < 9) return;
    if (crc16(raw, n - 2) != (((uint16_t)raw[n - 2] << 8) | raw[n - 1])) return;
    uint32_t to = ((uint32_t)raw[1] << 24) | ((uint32_t)raw[2] << 16) | ((uint16_t)raw[3] << 8)
                  | raw[4];
    if (to != box_id && to != 0xFFFFFFFFUL) return;
    uint8_t *p = raw + 7, len = n - 9;
    switch (raw[0]) {
    case WELCOME:
        if (len == 1) send_hello(1);
        break;
    case ACK:
        if (len == 4 && p[2] == 0) {
            uint16_t acked = ((uint16_t)p[0] << 8) | p[1];
            uint8_t status = p[3];
            if (status == ACK_RECORDED && vote_state != STATE_REVEALED) {
                led_mode = LED_RECORDED; led_until_set = 0;   /* "revealed" outranks it */
            }
            if (!pending && status == ACK_IGNORED && acked == pending_seq) {
                /* a ballot the app refused after receiving it */
                flash(LED_IGNORED, vote_state == STATE_OPEN ? LED_OPEN : LED_OFF, 600);
            }
            if (pending && acked == pending_seq) {
                pending = 0;
                if (status == ACK_RECEIVED) led_mode = LED_RECEIVED;
                else if (status == ACK_IGNORED)
                    flash(LED_IGNORED, vote_state == STATE_OPEN ? LED_OPEN : LED_OFF, 600);
                else if (status == ACK_PAIRED)
                    flash(LED_PAIRED, vote_state == STATE_OPEN ? LED_OPEN : LED_OFF, 1000);
            }
        }
        break;
    case VOTE_STATE:
        if (len == 3 && (p[0] == 0 || p[0] == 0xFF)) {
            /* the same state told again (after our HELLO): keep the ballot and its LED */
            if (p[1] == vote_state) break;
            vote_state = p[1];
            if (vote_state == STATE_OPEN && pending) break;  /* pressed as the vote opened */
            pending = 0;
            led_until_set = 0;
            led_mode = vote_state == STATE_OPEN ? LED_OPEN
                     : vote_state == STATE_REVEALED ? LED_REVEALED : LED_OFF;
        }
        break;
    }
}

static uint8_t frame[MAX_FRAME + 1], frame_len, frame_overflow;

static void take_byte(uint8_t b) {
    if (b != 0) {
        if (frame_len < MAX_FRAME) frame[frame_len++] = b; else frame_overflow = 1;
        return;
    }
    if (!frame_overflow && frame_len) {          /* COBS-decode in place */
        uint8_t out[MAX_FRAME], n = 0, i = 0, ok = 1;
        while (i < frame_len) {
            uint8_t code = frame[i];
            if (i + code > frame_len) { ok = 0; break; }
            for (uint8_t j = 1; j < code; j++) out[n++] = frame[i + j];
            i += code;
            if (code != 0xFF && i < frame_len) out[n++] = 0;
        }
        if (ok) on_frame(out, n);
    }
    frame_len = 0; frame_overflow = 0;
}

static uint8_t read_buttons(uint16_t *raw) {   /* 1 bits = pressed (pins low) */
    *raw = ((uint16_t)(~PIND >> 2) & 0x3F) | ((uint16_t)(~PINB & 0x3F) << 6);
    return 0;
}

int main(void) {
    uint32_t id = eeprom_read_dword((const uint32_t *)0);
    /* stored big-endian so a programmer can write the id as it is printed on the label */
    id = ((id & 0xFF) << 24) | ((id & 0xFF00) << 8) | ((id >> 8) & 0xFF00) | (id >> 24);
    box_id = (id == 0xFFFFFFFFUL || id == 0) ? BOX_ID : id;
    /* Power-up count in EEPROM bytes 4..5: tells the host our sequence numbers restarted even
       when the power-up HELLO was lost while the port was being opened. */
    boot = eeprom_read_word((const uint16_t *)4) + 1;
    eeprom_update_word((uint16_t *)4, boot);

    UBRR0H = UBRRH_VALUE; UBRR0L = UBRRL_VALUE;
#if USE_2X
    UCSR0A |= _BV(U2X0);
#else
    UCSR0A &= ~_BV(U2X0);
#endif
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);

    DDRD &= ~0xFC; PORTD |= 0xFC;      /* buttons in, pull-ups on */
    DDRB &= ~0x3F; PORTB |= 0x3F;
    DDRC |= 0x07; PORTC &= ~0x07;      /* LEDs out, off */

    TCCR0A = _BV(WGM01); TCCR0B = _BV(CS01) | _BV(CS00);   /* CTC, /64 */
    OCR0A = F_CPU / 64 / 1000 - 1;                         /* 1 kHz */
    TIMSK0 = _BV(OCIE0A);
    sei();

    send_hello(0);                     /* power-up; the host may not be listening yet */

    uint16_t stable = 0, last_tick = now(), next_heartbeat = last_tick + HEARTBEAT_MS;
    uint8_t count[N_BUTTONS];
    memset(count, 0, sizeof count);
    for (;;) {
        while (rx_tail != rx_head) {
            uint8_t b = rx_buf[rx_tail];
            rx_tail = (rx_tail + 1) & 63;
            take_byte(b);
        }
        uint16_t t = now();
        if (t == last_tick) continue;
        last_tick = t;

        uint16_t raw;
        read_buttons(&raw);
        for (uint8_t i = 0; i < N_BUTTONS; i++) {
            uint16_t bit = 1u << i;
            if ((raw ^ stable) & bit) {
                if (++count[i] >= DEBOUNCE_MS) {
                    count[i] = 0;
                    stable ^= bit;
                    if (stable & bit) {              /* a new press: replaces any pending one */
                        pending = 1; pending_button = i; pending_seq = ++seq;
                        pending_due = t + RETRY_MS;
                        led_mode = LED_SENDING; led_until_set = 0;
                        send_press();
                    }
                }
            } else {
                count[i] = 0;
            }
        }
        if (pending && (int16_t)(t - pending_due) >= 0) {
            pending_due = t + RETRY_MS;
            send_press();
        }
        if ((int16_t)(t - next_heartbeat) >= 0) {
            next_heartbeat = t + HEARTBEAT_MS;
            send_heartbeat();
        }
        show_leds();
    }
}
