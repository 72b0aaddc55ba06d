/* A 32-bit up-counter (DWT CYCCNT) widened to 64 bits: every sample adds the distance since the previous one, so no
 * wrap is lost as long as two samples are less than 2^32 counts apart (28.6 s at 150 MHz; ticks_dwt.c samples from
 * the SysTick interrupt far more often). Kept apart from the registers so the host tests can drive it. */
#ifndef MX_TICKS_EXTEND_H
#define MX_TICKS_EXTEND_H

#include <stdint.h>

typedef struct {
  uint64_t total; /* counts since the first sample */
  uint32_t last;  /* the counter at the previous sample */
} mx_ticks_extend_t;

/* Unsigned subtraction gives the forward distance across a wrap. The caller serialises calls (interrupts off). */
static inline uint64_t mx_ticks_extend(mx_ticks_extend_t *state, uint32_t now) {
  state->total += (uint32_t)(now - state->last);
  state->last = now;
  return state->total;
}

#endif
