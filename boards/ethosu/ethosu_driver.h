/* Ethos-U55/U65/U85 driver: runs one Vela payload (cmd_data) at a time, synchronously, without malloc.
 *
 * Registers are reached only through ethosu_io.h (ethosu_io_mmio.c on a device, ethosu_io_ram.c on the
 * host). The caller owns all storage: the mx_ethosu state, the io, the payload and the regions. See README.md
 * for the register sequences and where each fact comes from.
 */
#ifndef MX_ETHOSU_DRIVER_H
#define MX_ETHOSU_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ethosu_io.h"

/* Errors: 0 or one of these; mx_ethosu_strerror names each. */
enum {
  MX_ETHOSU_OK = 0,
  MX_ETHOSU_E_ARG = -1,              /* NULL pointer, or regions outside 0..8 */
  MX_ETHOSU_E_STATE = -2,            /* not initialised, or a reset after a failed job failed */
  MX_ETHOSU_E_PRODUCT = -3,          /* ID/CONFIG are not an Ethos-U55, U65 or U85 (e.g. nothing there) */
  MX_ETHOSU_E_CONFIG = -4,           /* mx_ethosu_config out of range for this NPU */
  MX_ETHOSU_E_RESET_TIMEOUT = -5,    /* STATUS.reset_status still set after the reset budget */
  MX_ETHOSU_E_PROT = -6,             /* PROT after reset is not the requested security/privilege level */
  MX_ETHOSU_E_PAYLOAD_SIZE = -7,     /* payload shorter than the tag, or not whole 32-bit words */
  MX_ETHOSU_E_TAG = -8,              /* payload does not start with "COP1" */
  MX_ETHOSU_E_TRUNCATED = -9,        /* OPTIMIZER_CONFIG cut short by the end of the payload */
  MX_ETHOSU_E_STREAM_LENGTH = -10,   /* command stream empty, or longer than what remains of the payload */
  MX_ETHOSU_E_ACTION = -11,          /* unknown driver action */
  MX_ETHOSU_E_STREAM_COUNT = -12,    /* not exactly one command stream */
  MX_ETHOSU_E_OPT_CONFIG = -13,      /* compiled for another NPU configuration (CONFIG) */
  MX_ETHOSU_E_OPT_ARCH = -14,        /* compiled for an architecture version this NPU lacks (ID) */
  MX_ETHOSU_E_ALIGN = -15,           /* command stream or a region base not 16-byte aligned */
  MX_ETHOSU_E_ADDRESS = -16,         /* an address wider than the NPU's address bits */
  MX_ETHOSU_E_BUSY = -17,            /* the NPU is running */
  MX_ETHOSU_E_BUS = -18,             /* STATUS.bus_status: bus abort */
  MX_ETHOSU_E_CMD_PARSE = -19,       /* STATUS.cmd_parse_error */
  MX_ETHOSU_E_WEIGHT_DECODER = -20,  /* STATUS.wd_fault (U55/U65) */
  MX_ETHOSU_E_ECC = -21,             /* STATUS.ecc_fault */
  MX_ETHOSU_E_NOT_ENDED = -22,       /* the NPU stopped before the end of the command stream */
  MX_ETHOSU_E_TIMEOUT = -23,         /* no completion within the budget */
  MX_ETHOSU_E_BRANCH = -24,          /* STATUS.branch_fault (U85) */
  MX_ETHOSU_E_OPT_PRODUCT = -25,     /* compiled for another product (CONFIG.product): see job_config */
};
#define MX_ETHOSU_E_LAST MX_ETHOSU_E_OPT_PRODUCT

#define MX_ETHOSU_REGIONS 8

/* One AXI_LIMIT entry (U55/U65): how the NPU's transactions through it behave. */
typedef struct {
  uint8_t max_beats;  /* burst split: 0 = 64 B, 1 = 128 B, 2 = 256 B */
  uint8_t memtype;    /* AxCACHE encoding, 0 (device non-bufferable) .. 11 (write-back, read+write allocate) */
  uint8_t max_reads;  /* outstanding reads: 1..32 (U55), 1..64 (U65) */
  uint8_t max_writes; /* outstanding writes: 1..16 (U55), 1..32 (U65) */
} mx_ethosu_axi_limit;

/* One MEM_ATTR entry (U85): where the transactions of the regions that pick it go. */
typedef struct {
  uint8_t domain;  /* AXI memory domain: 0 non-shareable, 1 inner, 2 outer shareable, 3 system */
  uint8_t port;    /* 0 the SRAM AXI ports, 1 the external ones */
  uint8_t memtype; /* AxCACHE encoding, as axi_limit's */
} mx_ethosu_mem_attr;

/* The U85's limits for one kind of AXI port (AXI_SRAM, AXI_EXT): the same for every port of that kind. */
typedef struct {
  uint8_t max_beats;  /* burst split, as axi_limit's */
  uint8_t max_reads;  /* outstanding reads per port: 1..64 */
  uint8_t max_writes; /* outstanding writes per port: 1..32 */
} mx_ethosu_axi_port;

typedef struct {
  bool non_secure; /* RESET/PROT CSL: false = secure (Corstone-300 firmware boots secure) */
  bool user;       /* RESET/PROT CPL: false = privileged */
  mx_ethosu_axi_limit axi_limit[4]; /* U55/U65 only */
  /* U85 only: MEM_ATTR0..3, the AXI_SRAM and AXI_EXT limits, POWER_CTRL.mac_step_cycles (0..63; 0: no MAC
   * power ramping, else 4 * that many cycles). */
  mx_ethosu_mem_attr mem_attr[4];
  mx_ethosu_axi_port axi_sram, axi_ext;
  uint8_t mac_step_cycles;
  /* The entry (0..3) each region's transactions use, written to REGIONCFG. U55/U65: an AXI_LIMIT entry, 0 and 1
   * going out on AXI0 (SRAM), 2 and 3 on AXI1 (external memory); U85: a MEM_ATTR entry, which names the port.
   * cmd_limit is the same for the command stream (QCONFIG). */
  uint8_t region_limit[MX_ETHOSU_REGIONS];
  uint8_t cmd_limit;
  uint8_t address_bits; /* bus address width: 32 (U55), 40 (U65, U85); a host build against a simulator: 64 */
  bool keep_powered;    /* never set CMD's clock/power Q-interface enables (by default set while idle) */
  uint32_t reset_budget; /* STATUS polls allowed for a soft reset to finish */
  /* Completion: false = poll STATUS; true = mx_ethosu_irq_handler (wired to the NPU's interrupt by the
   * board) signals it and the run only checks a flag. */
  bool irq;
  uint64_t (*ticks)(void); /* optional: the run's budget is in these ticks; NULL: in polls */
  void (*idle)(void);      /* optional: called between polls (e.g. WFE when irq is set) */
} mx_ethosu_config;

/* Driver state: caller-provided storage, set up by mx_ethosu_init. */
typedef struct {
  mx_ethosu_io *io;
  mx_ethosu_config cfg;
  uint32_t id, config;          /* ID and CONFIG read at init */
  uint32_t status;              /* STATUS when the last job ended (faulting channel etc.) */
  uint32_t job_config, job_id;  /* the last payload's OPTIMIZER_CONFIG (0, 0: none), to name a mismatch */
  uint64_t cycles;              /* the last job's NPU cycles, from the PMU's cycle counter (0: no PMU answered) */
  uint32_t idle_cmd;            /* CMD's Q-interface bits while no job runs */
  volatile uint32_t cmd_q;      /* CMD's Q-interface bits now (0 while a job runs) */
  volatile uint32_t irq_status; /* STATUS as the interrupt handler saw it */
  volatile uint32_t irq_done;   /* set by the interrupt handler */
  bool configured;              /* init got as far as a checked configuration: a reset can be tried */
  bool ready;                   /* init and every reset since succeeded */
} mx_ethosu;

/* The defaults for `product` (MX_ETHOSU_PRODUCT_U55, _U65 or _U85), those of Arm's driver: secure, privileged;
 * region 0 (weights) on entry 3 (AXI1 / external), region 1 (scratch) on 0 (AXI0 / SRAM; U65: 2, AXI1),
 * regions 2..7 on 1 (AXI0 / SRAM), the command stream on 2 (AXI1 / external); reset budget 100000 polls;
 * polling. U55/U65: every AXI_LIMIT with 64-byte bursts, memtype 0 and the product's largest outstanding
 * counts; address bits 32 (U55) / 40 (U65). U85: MEM_ATTR 0, 1 on the SRAM ports and 2, 3 on the external
 * ones, non-shareable, memtype 0; AXI_SRAM 256-byte bursts, 12 reads, 16 writes; AXI_EXT 256-byte bursts, 64
 * reads, 32 writes; no MAC power ramping; address bits 40. Another product: the U55's. */
void mx_ethosu_config_default(mx_ethosu_config *cfg, unsigned product);

/* Reads ID and CONFIG (a U55 or U65 with arch 1.x, or a U85 with arch 2.x), checks `cfg` (NULL: the product's
 * defaults), soft-resets the NPU to the configured security/privilege level (RESET, then STATUS and PROT),
 * then writes the AXI setup (U55/U65: AXI_LIMIT0..3; U85: MEM_ATTR0..3, AXI_SRAM, AXI_EXT, POWER_CTRL),
 * QCONFIG, REGIONCFG and CMD's idle Q-interface bits. */
int mx_ethosu_init(mx_ethosu *npu, mx_ethosu_io *io, const mx_ethosu_config *cfg);

/* Runs one payload: `cmd_data` is Vela's driver payload ("COP1", driver actions, the command stream; its
 * command words must sit 16-byte aligned), base[0..regions-1] the region base addresses as the NPU sees them
 * (Vela's convention: 0 weights/constants, 1 scratch holding the inputs and outputs, 2 fast scratch), 16-byte
 * aligned; the other base pointers are set to 0. Waits for the end at most `budget` (ticks with cfg.ticks,
 * else polls). A malformed payload or argument fails before any register is touched; a fault or a timeout
 * soft-resets the NPU so the next run can go. */
int mx_ethosu_run(mx_ethosu *npu, const uint8_t *cmd_data, size_t cmd_bytes, const uint64_t *base, int regions,
                  uint32_t budget);

/* The NPU's interrupt: saves STATUS, clears the interrupt, signals the run (cfg.irq). */
void mx_ethosu_irq_handler(mx_ethosu *npu);

/* Soft reset and re-applies the configuration (after init). */
int mx_ethosu_reset(mx_ethosu *npu);

const char *mx_ethosu_strerror(int err);

/* "Ethos-U55", "Ethos-U65", "Ethos-U85" for a CONFIG.product value, else "unknown Ethos-U product": with
 * job_config and config it names both sides of an MX_ETHOSU_E_OPT_PRODUCT. */
const char *mx_ethosu_product_name(unsigned product);

#endif /* MX_ETHOSU_DRIVER_H */
