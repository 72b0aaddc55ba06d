/* The Ethos-U85's part of the driver, for ethosu_driver.c only: what differs from the U55/U65 at init. The run,
 * the payload and the soft reset's RESET/STATUS/PROT steps are the same on all three (README.md, "The U85"). */
#ifndef MX_ETHOSU_U85_H
#define MX_ETHOSU_U85_H

#include "ethosu_driver.h"

/* Arm's defaults (ethosu_config_u85.h) for the U85-only fields of `cfg`: MEM_ATTR, AXI_SRAM/AXI_EXT, POWER_CTRL. */
void mx_ethosu_u85_config_default(mx_ethosu_config *cfg);

/* MX_ETHOSU_OK when the U85-only fields fit their registers' fields, else MX_ETHOSU_E_CONFIG. */
int mx_ethosu_u85_check_config(const mx_ethosu_config *cfg);

/* After a soft reset, in Arm's order: MEM_ATTR0..3, AXI_SRAM, AXI_EXT, POWER_CTRL (a reset clears them). */
void mx_ethosu_u85_write_axi(mx_ethosu_io *io, const mx_ethosu_config *cfg);

#endif /* MX_ETHOSU_U85_H */
