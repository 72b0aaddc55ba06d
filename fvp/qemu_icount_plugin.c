/* QEMU TCG plugin (plugin API version 1, as in Debian's QEMU 7.2, which ships no qemu-plugin.h):
 * counts guest instructions in total and inside regions the firmware marks.
 *
 * Marker convention (boards/include/mx_platform.h): the firmware calls mx_icount_hit(p), a function
 * whose only memory access is a byte load from p = window + 2*tag (begin) or window + 2*tag + 1 (end).
 * The host passes the function's address range and the window address as plugin arguments
 * (lo=, hi=, window=, from the ELF's symbols); the plugin puts a memory callback on the instructions
 * in [lo, hi) only, so unmarked code runs at full speed with one inline add per translation block.
 *
 * Output (at exit, through qemu_plugin_outs, visible with `-d plugin -D FILE`):
 *   mx-icount total <instructions>
 *   mx-icount region <tag> <times entered> <instructions summed over all entries>
 * A region's count covers everything from the begin marker's block to the end marker's block. */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The subset of the version-1 API this plugin uses, declared from QEMU 7.2's qemu-plugin.h. */
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw, void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAX_TAGS 32768u   /* MX_ICOUNT_MAX_TAGS */

/* Single vCPU (Cortex-M): plain counters are enough. */
static uint64_t total;
static uint64_t marker_lo, marker_hi, window;
static uint64_t started[MAX_TAGS], counted[MAX_TAGS], entries[MAX_TAGS];

static void on_marker(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata) {
  (void)vcpu, (void)info, (void)udata;
  uint64_t code = vaddr - window;
  if (vaddr < window || code >= 2u * MAX_TAGS) {
    return;
  }
  uint64_t tag = code >> 1;
  if ((code & 1u) == 0) {
    started[tag] = total;
  } else {
    counted[tag] += total - started[tag];
    entries[tag]++;
  }
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &total, n);
  for (size_t i = 0; i < n; i++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    if (pc >= marker_lo && pc < marker_hi) {
            /* QEMU 7.2 delivers nothing for a MEM_R-only filter on Arm loads; the marker only loads anyway. */
      qemu_plugin_register_vcpu_mem_cb(insn, on_marker, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
    }
  }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata) {
  (void)id, (void)udata;
  char line[96];
  snprintf(line, sizeof line, "mx-icount total %" PRIu64 "\n", total);
  qemu_plugin_outs(line);
  for (uint32_t tag = 0; tag < MAX_TAGS; tag++) {
    if (entries[tag]) {
      snprintf(line, sizeof line, "mx-icount region %" PRIu32 " %" PRIu64 " %" PRIu64 "\n", tag, entries[tag],
               counted[tag]);
      qemu_plugin_outs(line);
    }
  }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
  (void)info;
  for (int i = 0; i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    uint64_t value = eq ? strtoull(eq + 1, NULL, 0) : 0;
    if (!strncmp(argv[i], "lo=", 3)) {
      marker_lo = value;
    } else if (!strncmp(argv[i], "hi=", 3)) {
      marker_hi = value;
    } else if (!strncmp(argv[i], "window=", 7)) {
      window = value;
    } else {
      fprintf(stderr, "qemu_icount_plugin: unknown argument '%s' (want lo=, hi=, window=)\n", argv[i]);
      return 1;
    }
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
  return 0;
}
