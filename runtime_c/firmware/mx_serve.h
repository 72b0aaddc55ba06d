#ifndef MX_SERVE_H
#define MX_SERVE_H
/* What the serving firmware's main (serve_main.c) takes from the rest of its project: the memory the generated
 * serve/mx_serve_memory.c sizes from the board file, and the board's model slot store. */
#include <stdint.h>

#include "mx_serial.h"

extern uint8_t mx_serve_work[];           /* the active model's metadata pool, arenas and profile */
extern const uint32_t mx_serve_work_bytes;
extern uint8_t mx_serve_slot_ram[];       /* 2 x mx_serve_slot_bytes for a store that keeps slots in RAM */
extern const uint32_t mx_serve_slot_bytes;
extern const char mx_serve_board[];
extern const char mx_serve_firmware[];

/* The most work (mx_method_cost: element operations and multiply-accumulates) one invoke of a model sent over the
 * link may take: a few seconds of a 100 MHz core (KWS takes 3 M, ResNet-8 16 M); a program asking more is refused at load
 * rather than hanging the board. */
#define MX_SERVE_MAX_COST 200000000ull

/* The board's slot store (boards/<family>/slot_store_*.c): fills *store for two slots of slot_bytes each.
 * ram (2 x slot_bytes, 16-byte aligned) is where a store whose medium is not memory-mapped keeps the copy
 * that map() hands out. A store that cannot reach its medium still fills *store, with erase/write failing,
 * so that a load is refused (0x050A) instead of the firmware stopping mute. */
void mx_slot_store_open(mx_slot_store *store, uint8_t *ram, uint32_t slot_bytes);

#endif
