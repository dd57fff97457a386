/*
 * launcher.c: runs ClickHouse 26.7 (chDB's libchdb.so, as clickhouse-local) as a native-protocol
 * server on loopback, for chnative's tests. Built and driven by scripts/modern.sh; not part of
 * the driver.
 *
 *   launcher LIBCHDB DATA_DIR FIFO TCP_PORT HTTP_PORT CONFIG_FILE
 *
 * How the engine becomes a server (facts in shared/reference/modern-server.md):
 *   chdb_query_cmdline runs clickhouse-local itself. Its --listen_host/--tcp_port/--http_port
 *   flags only configure addresses; the query "SYSTEM START LISTEN TCP; SYSTEM START LISTEN
 *   HTTP; <blocking read of FIFO>" opens the listeners and keeps them open while it blocks.
 *   Writing a line into FIFO ends the read; clickhouse-local then closes the listeners and
 *   chdb_query_cmdline returns.
 *
 * Why it survives a failed login:
 *   clickhouse-local installs an error handler (class KillingErrorHandler) that calls
 *   std::terminate, and the TCP handler rethrows handshake errors (wrong password, unknown
 *   user, garbage instead of Hello) into it: one bad login would kill the server under every
 *   other test. Before starting the engine the child finds that class's vtable through its RTTI
 *   name (the library is stripped: the typeinfo name string, then the typeinfo object pointing
 *   at it, then the vtable pointing at the typeinfo) and replaces its three exception()
 *   overloads with functions that log and return, so the failing connection ends and the
 *   server goes on. This relies on the Itanium C++ ABI layout and on the one pinned chDB
 *   build; if the class is not found exactly once the launcher refuses to start (exit 3), so
 *   a different build fails loudly instead of dying at the first bad login.
 *
 * Supervision: the parent process runs the engine in a child. If the child dies while no stop
 *   was asked for (a crash the patch does not cover), the parent logs it and restarts it on the
 *   same ports and data after a short pause, at most MAX_RESTARTS times. SIGTERM or SIGINT to
 *   the parent is a clean stop: a line into FIFO, then up to 15 s for the engine to return,
 *   then SIGKILL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RESTARTS 20

typedef struct chdb_result chdb_result;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
	va_list ap;
	char buf[64];
	time_t t = time(NULL);
	strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", gmtime(&t));
	fprintf(stderr, "%s launcher[%d]: ", buf, (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* ---------------------------------------------------------------- error handler patch */

static unsigned long handled;

/* Replacements for KillingErrorHandler::exception(const Poco::Exception&),
 * exception(const std::exception&) and exception(): the server's TCP handler ends the
 * connection after the handler returns. */
static void on_exception_ref(void *self, const void *e) {
	(void)self; (void)e;
	logf_("error handler: exception on a connection ignored (%lu so far)", ++handled);
}
static void on_exception_void(void *self) {
	(void)self;
	logf_("error handler: unknown exception on a connection ignored (%lu so far)", ++handled);
}

struct seg { uintptr_t start, end; int flags; };
struct module { const char *path; struct seg segs[16]; int nsegs; };

static int collect(struct dl_phdr_info *info, size_t size, void *arg) {
	(void)size;
	struct module *m = arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, m->path)) return 0;
	for (int i = 0; i < info->dlpi_phnum && m->nsegs < 16; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD) continue;
		m->segs[m->nsegs].start = info->dlpi_addr + ph->p_vaddr;
		m->segs[m->nsegs].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		m->segs[m->nsegs].flags = ph->p_flags;
		m->nsegs++;
	}
	return 1;
}

static int in_exec(const struct module *m, uintptr_t p) {
	for (int i = 0; i < m->nsegs; i++)
		if ((m->segs[i].flags & PF_X) && p >= m->segs[i].start && p < m->segs[i].end) return 1;
	return 0;
}

/* find_words returns how many aligned words in m's writable segments equal v (and, when
 * prev0 is set, are preceded by a zero word); the first match goes to *at. */
static int find_words(const struct module *m, uintptr_t v, int prev0, uintptr_t *at) {
	int n = 0;
	for (int i = 0; i < m->nsegs; i++) {
		if (!(m->segs[i].flags & PF_W)) continue;
		uintptr_t s = (m->segs[i].start + 7) & ~(uintptr_t)7;
		for (uintptr_t p = s + 8; p + 8 <= m->segs[i].end; p += 8) {
			if (*(uintptr_t *)p != v) continue;
			if (prev0 && *(uintptr_t *)(p - 8) != 0) continue;
			if (n++ == 0) *at = p;
		}
	}
	return n;
}

static int patch_error_handler(const char *libpath) {
	static const char name[] = "19KillingErrorHandler";
	struct module m = {0};
	const char *base = strrchr(libpath, '/');
	m.path = base ? base + 1 : libpath;
	dl_iterate_phdr(collect, &m);
	if (m.nsegs == 0) { logf_("patch: %s is not loaded", m.path); return -1; }

	/* 1. the typeinfo name: the string, NUL before and after, in a read-only segment */
	uintptr_t str = 0;
	int nstr = 0;
	for (int i = 0; i < m.nsegs; i++) {
		if (m.segs[i].flags & (PF_W | PF_X)) continue;
		const char *p = (const char *)m.segs[i].start, *end = (const char *)m.segs[i].end;
		while ((p = memmem(p, (size_t)(end - p), name, sizeof name)) != NULL) {
			if (p > (const char *)m.segs[i].start && p[-1] == '\0') {
				if (nstr++ == 0) str = (uintptr_t)p;
			}
			p += sizeof name;
		}
	}
	if (nstr != 1) { logf_("patch: typeinfo name %s found %d times, want 1", name, nstr); return -1; }

	/* 2. the typeinfo object: {vptr of the typeinfo class, name, ...}, so name sits at +8 */
	uintptr_t tinameref = 0;
	int nti = find_words(&m, str, 0, &tinameref);
	if (nti != 1) { logf_("patch: typeinfo of %s found %d times, want 1", name, nti); return -1; }
	uintptr_t ti = tinameref - 8;

	/* 3. the vtable: {offset_to_top = 0, typeinfo, D1, D0, exception x3} */
	uintptr_t vtref = 0;
	int nvt = find_words(&m, ti, 1, &vtref);
	if (nvt != 1) { logf_("patch: vtable of %s found %d times, want 1", name, nvt); return -1; }
	uintptr_t *slots = (uintptr_t *)(vtref + 8);
	for (int i = 0; i < 5; i++) {
		if (!in_exec(&m, slots[i])) {
			logf_("patch: vtable slot %d of %s is not code (0x%lx)", i, name, (unsigned long)slots[i]);
			return -1;
		}
	}
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)&slots[2] & ~(uintptr_t)(pg - 1);
	uintptr_t hi = ((uintptr_t)&slots[5] + pg - 1) & ~(uintptr_t)(pg - 1);
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) != 0) {
		logf_("patch: mprotect: %s", strerror(errno));
		return -1;
	}
	slots[2] = (uintptr_t)on_exception_ref;
	slots[3] = (uintptr_t)on_exception_ref;
	slots[4] = (uintptr_t)on_exception_void;
	mprotect((void *)lo, hi - lo, PROT_READ);
	logf_("patch: %s's exception handlers now log and return", name + 2);
	return 0;
}

/* ---------------------------------------------------------------- the engine (child) */

static int run_engine(char **argv) {
	const char *lib = argv[1], *data = argv[2], *fifo = argv[3];
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) { logf_("dlopen: %s", dlerror()); return 2; }
	chdb_result *(*query)(int, char **) = (chdb_result * (*)(int, char **)) dlsym(h, "chdb_query_cmdline");
	const char *(*result_error)(chdb_result *) = (const char *(*)(chdb_result *))dlsym(h, "chdb_result_error");
	if (!query || !result_error) { logf_("dlsym: chdb_query_cmdline or chdb_result_error missing"); return 2; }
	if (patch_error_handler(lib) != 0) return 3;

	char a_path[4096], a_host[] = "--listen_host=127.0.0.1", a_tcp[64], a_http[64], a_cfg[4096], q[4096 + 256];
	snprintf(a_path, sizeof a_path, "--path=%s", data);
	snprintf(a_tcp, sizeof a_tcp, "--tcp_port=%s", argv[4]);
	snprintf(a_http, sizeof a_http, "--http_port=%s", argv[5]);
	snprintf(a_cfg, sizeof a_cfg, "--config-file=%s", argv[6]);
	snprintf(q, sizeof q,
		 "SYSTEM START LISTEN TCP; SYSTEM START LISTEN HTTP; "
		 "SELECT count() FROM file('%s', 'LineAsString') SETTINGS max_threads = 1",
		 fifo);
	char *args[] = {"clickhouse", a_path, a_host, a_tcp, a_http, a_cfg, "--query", q, NULL};
	logf_("engine starting: tcp %s, http %s, data %s", argv[4], argv[5], data);
	chdb_result *r = query(8, args);
	const char *err = r ? result_error(r) : "no result";
	if (err) { logf_("engine returned an error: %s", err); return 1; }
	logf_("engine stopped");
	return 0;
}

/* ---------------------------------------------------------------- supervisor (parent) */

static volatile sig_atomic_t stopping;
static void on_stop(int sig) { (void)sig; stopping = 1; }

static void poke_fifo(const char *fifo) {
	int fd = open(fifo, O_WRONLY | O_NONBLOCK);
	if (fd < 0) return; /* no reader: the engine is not reading (yet) */
	if (write(fd, "stop\n", 5) < 0) { /* nothing to do */ }
	close(fd);
}

int main(int argc, char **argv) {
	if (argc != 7) {
		fprintf(stderr, "usage: %s LIBCHDB DATA_DIR FIFO TCP_PORT HTTP_PORT CONFIG_FILE\n", argv[0]);
		return 2;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	int restarts = 0;
	for (;;) {
		pid_t pid = fork();
		if (pid < 0) { logf_("fork: %s", strerror(errno)); return 1; }
		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			_exit(run_engine(argv));
		}
		int st = 0, waited = 0;
		for (;;) {
			pid_t w = waitpid(pid, &st, stopping ? WNOHANG : 0);
			if (w == pid) break;
			if (w < 0 && errno != EINTR) { logf_("waitpid: %s", strerror(errno)); return 1; }
			if (stopping) {
				if (waited % 10 == 0) poke_fifo(argv[3]);
				if (++waited > 150) { logf_("engine did not stop in 15 s: SIGKILL"); kill(pid, SIGKILL); }
				usleep(100000);
			}
		}
		if (stopping) { logf_("stopped"); return 0; }
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) { logf_("engine ended (its fifo was written)"); return 0; }
		if (WIFEXITED(st) && (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 3)) {
			logf_("engine could not start (exit %d)", WEXITSTATUS(st));
			return WEXITSTATUS(st);
		}
		if (WIFSIGNALED(st)) logf_("engine killed by signal %d", WTERMSIG(st));
		else logf_("engine exited with status %d", WEXITSTATUS(st));
		if (++restarts > MAX_RESTARTS) { logf_("restarted %d times: giving up", MAX_RESTARTS); return 1; }
		logf_("restarting the engine (%d of %d)", restarts, MAX_RESTARTS);
		usleep(300000);
	}
}
