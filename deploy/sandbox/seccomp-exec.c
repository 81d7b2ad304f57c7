// seccomp-exec: runs a command under the system call filter a hold-dialer unit gets from systemd, for
// trying the units' restrictions on a machine where systemd is not PID 1 (a container, CI), where
// `systemctl start` and `systemd-run` cannot be used. No packaged tool applies such a filter from a list
// of names (bubblewrap takes compiled BPF only), so this small wrapper feeds libseccomp (the library
// systemd itself uses) and execs. Built and used by run-as-unit.sh; see deploy/README.md "Hardening".
//
//   seccomp-exec ALLOWED_FILE [--mdwe] -- COMMAND [ARGS...]
//
// ALLOWED_FILE: system call names, one a line (SystemCallFilter=, expanded); any other call fails with
// EPERM (SystemCallErrorNumber=EPERM). socket() is allowed for AF_INET, AF_INET6 and AF_UNIX only
// (RestrictAddressFamilies=). --mdwe adds MemoryDenyWriteExecute=yes: no mapping both writable and
// executable, no mprotect() to executable.
//
// libseccomp's header (libseccomp-dev) is not needed: the few declarations below are its stable ABI.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

typedef void *scmp_filter_ctx;
struct scmp_arg_cmp {
  unsigned int arg;
  int op;
  uint64_t datum_a;
  uint64_t datum_b;
};
#define SCMP_CMP_EQ 4
#define SCMP_CMP_MASKED_EQ 7
#define SCMP_ACT_ALLOW 0x7fff0000U
#define SCMP_ACT_ERRNO(x) (0x00050000U | ((x) & 0x0000ffffU))
extern scmp_filter_ctx seccomp_init(uint32_t def_action);
extern int seccomp_syscall_resolve_name(const char *name);
extern int seccomp_rule_add_array(scmp_filter_ctx ctx, uint32_t action, int syscall, unsigned int arg_cnt,
                                  const struct scmp_arg_cmp *arg_array);
extern int seccomp_load(scmp_filter_ctx ctx);

static int add(scmp_filter_ctx ctx, const char *name, unsigned int n, const struct scmp_arg_cmp *cmp) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr < 0) return 0; // not a call on this architecture
  int r = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, n, cmp);
  if (r < 0) fprintf(stderr, "seccomp-exec: rule for %s: %s\n", name, strerror(-r));
  return r;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: seccomp-exec ALLOWED_FILE [--mdwe] -- COMMAND [ARGS...]\n");
    return 2;
  }
  int mdwe = strcmp(argv[2], "--mdwe") == 0;
  int cmd = mdwe ? 4 : 3;
  if (cmd >= argc || strcmp(argv[cmd - 1], "--") != 0) {
    fprintf(stderr, "seccomp-exec: expected -- before the command\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
  char line[128];
  int allowed = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0]) continue;
    if (strcmp(line, "socket") == 0) {
      int families[] = {AF_INET, AF_INET6, AF_UNIX};
      for (int i = 0; i < 3; i++) {
        struct scmp_arg_cmp c = {0, SCMP_CMP_EQ, (uint64_t)families[i], 0};
        if (add(ctx, "socket", 1, &c) < 0) return 1;
      }
    } else if (mdwe && strcmp(line, "mmap") == 0) {
      // allowed when not writable, or when not executable
      struct scmp_arg_cmp noexec = {2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0};
      struct scmp_arg_cmp nowrite = {2, SCMP_CMP_MASKED_EQ, PROT_WRITE, 0};
      if (add(ctx, "mmap", 1, &noexec) < 0 || add(ctx, "mmap", 1, &nowrite) < 0) return 1;
    } else if (mdwe && (strcmp(line, "mprotect") == 0 || strcmp(line, "pkey_mprotect") == 0)) {
      struct scmp_arg_cmp noexec = {2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0};
      if (add(ctx, line, 1, &noexec) < 0) return 1;
    } else if (add(ctx, line, 0, NULL) < 0) {
      return 1;
    }
    allowed++;
  }
  fclose(f);
  int r = seccomp_load(ctx);
  if (r < 0) {
    fprintf(stderr, "seccomp-exec: loading the filter: %s\n", strerror(-r));
    return 1;
  }
  fprintf(stderr, "seccomp-exec: %d calls allowed%s, others EPERM\n", allowed, mdwe ? ", W^X memory" : "");
  execvp(argv[cmd], argv + cmd);
  perror(argv[cmd]);
  return 127;
}
