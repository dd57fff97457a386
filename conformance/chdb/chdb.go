// Package chdb embeds a real ClickHouse engine (chDB's libchdb.so) for use
// as a conformance oracle in tests.
//
// The library is loaded at run time with dlopen/dlsym, so nothing links
// against it at build time: the package builds (with cgo) on any machine and
// only needs libchdb.so when Open is called. Fetch the library with
// scripts/chdb.sh and point CHNATIVE_CHDB_LIB at it:
//
//	export CHNATIVE_CHDB_LIB="$(scripts/chdb.sh | tail -n1)"
//
// The C API used is chDB's v2 connection API (chdb_connect, chdb_query_n,
// chdb_result_*, chdb_destroy_query_result, chdb_close_conn). The
// declarations below mirror chdb.h of chDB 26.7; the npm package does not
// ship the header.
package chdb

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>

// Opaque handles, as declared in chdb.h (v2 API).
typedef struct chdb_result_ { void *internal_data; } chdb_result;
typedef struct chdb_connection_ { void *internal_data; } *chdb_connection;

typedef const char *(*chdb_version_fn)(void);
typedef void (*chdb_set_signal_handlers_enabled_fn)(int);
typedef chdb_connection *(*chdb_connect_fn)(int, char **);
typedef void (*chdb_close_conn_fn)(chdb_connection *);
typedef chdb_result *(*chdb_query_n_fn)(chdb_connection, const char *, size_t, const char *, size_t);
typedef char *(*chdb_result_buffer_fn)(chdb_result *);
typedef size_t (*chdb_result_length_fn)(chdb_result *);
typedef const char *(*chdb_result_error_fn)(chdb_result *);
typedef void (*chdb_destroy_query_result_fn)(chdb_result *);

typedef struct {
	chdb_version_fn version;
	chdb_set_signal_handlers_enabled_fn set_signal_handlers_enabled;
	chdb_connect_fn connect;
	chdb_close_conn_fn close_conn;
	chdb_query_n_fn query_n;
	chdb_result_buffer_fn result_buffer;
	chdb_result_length_fn result_length;
	chdb_result_error_fn result_error;
	chdb_destroy_query_result_fn destroy_query_result;
} chdb_api;

static chdb_api api;

// chdb_load dlopens path and resolves the API. Returns NULL on success,
// otherwise a static/dlerror message (not to be freed).
static const char *chdb_load(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
#define SYM(field, name) \
	api.field = (__typeof__(api.field))dlsym(h, name); \
	if (!api.field) return "missing symbol " name;
	SYM(version, "chdb_version")
	SYM(set_signal_handlers_enabled, "chdb_set_signal_handlers_enabled")
	SYM(connect, "chdb_connect")
	SYM(close_conn, "chdb_close_conn")
	SYM(query_n, "chdb_query_n")
	SYM(result_buffer, "chdb_result_buffer")
	SYM(result_length, "chdb_result_length")
	SYM(result_error, "chdb_result_error")
	SYM(destroy_query_result, "chdb_destroy_query_result")
#undef SYM
	return NULL;
}

static const char *chdb_version_c(void) { return api.version(); }
static void chdb_no_signal_handlers(void) { api.set_signal_handlers_enabled(0); }
static chdb_connection *chdb_connect_c(int argc, char **argv) { return api.connect(argc, argv); }
static void chdb_close_c(chdb_connection *c) { api.close_conn(c); }

// chdb_query_c runs a query and hands back buffer/length/error. The result
// must be released with chdb_destroy_c.
static chdb_result *chdb_query_c(chdb_connection *c, const char *q, size_t qlen,
                                 const char *f, size_t flen,
                                 char **buf, size_t *len, const char **err) {
	chdb_result *r = api.query_n(*c, q, qlen, f, flen);
	*buf = NULL; *len = 0; *err = NULL;
	if (!r) return NULL;
	*err = api.result_error(r);
	*buf = api.result_buffer(r);
	*len = api.result_length(r);
	return r;
}
static void chdb_destroy_c(chdb_result *r) { if (r) api.destroy_query_result(r); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// EnvLib names the environment variable holding the path of libchdb.so.
const EnvLib = "CHNATIVE_CHDB_LIB"

var (
	loadMu   sync.Mutex
	loaded   string // path of the library loaded into this process
	engineMu sync.Mutex
	openEng  *Engine // chDB allows one data path per process; we keep one engine
)

// Engine is a connection to an embedded ClickHouse. It is safe for
// concurrent use: calls are serialized by a mutex.
type Engine struct {
	mu   sync.Mutex
	conn *C.chdb_connection
	dir  string
}

// Error is a query error reported by ClickHouse.
type Error struct {
	Query   string
	Message string // chdb_result_error text, e.g. "Code: 62. DB::Exception: Syntax error: ..."
}

func (e *Error) Error() string { return "chdb: " + e.Message }

func load(libPath string) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded != "" {
		if loaded != libPath {
			return fmt.Errorf("chdb: %s already loaded, cannot load %s", loaded, libPath)
		}
		return nil
	}
	cpath := C.CString(libPath)
	defer C.free(unsafe.Pointer(cpath))
	if msg := C.chdb_load(cpath); msg != nil {
		return fmt.Errorf("chdb: load %s: %s", libPath, C.GoString(msg))
	}
	// chDB installs process-wide signal handlers by default, which would
	// clash with the Go runtime's (SIGSEGV, SIGPROF, SIGURG, ...).
	C.chdb_no_signal_handlers()
	loaded = libPath
	return nil
}

// Open loads libPath (or $CHNATIVE_CHDB_LIB when libPath is "") and connects
// to an engine whose data lives in a fresh private temporary directory.
//
// chDB runs a single engine per process with a single data path, so only one
// Engine may be open at a time: Open fails while another Engine is open;
// Close it first (or share one, see ForTest).
func Open(libPath string) (*Engine, error) {
	return open(libPath, nil)
}

// OpenArgs is like Open but passes extra clickhouse-local style arguments to
// chdb_connect, e.g. "--max_threads=2" or "--user_files_path=/some/dir".
func OpenArgs(libPath string, args ...string) (*Engine, error) {
	return open(libPath, args)
}

func open(libPath string, extra []string) (*Engine, error) {
	if libPath == "" {
		libPath = os.Getenv(EnvLib)
		if libPath == "" {
			return nil, fmt.Errorf("chdb: no library path given and %s is not set (run scripts/chdb.sh)", EnvLib)
		}
	}
	if err := load(libPath); err != nil {
		return nil, err
	}
	engineMu.Lock()
	defer engineMu.Unlock()
	if openEng != nil {
		return nil, errors.New("chdb: an Engine is already open in this process (chDB supports one data path per process)")
	}
	dir, err := os.MkdirTemp("", "chnative-chdb-*")
	if err != nil {
		return nil, fmt.Errorf("chdb: %w", err)
	}
	args := append([]string{"clickhouse", "--path=" + dir}, extra...)
	argv := make([]*C.char, len(args)+1) // NULL-terminated
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	defer func() {
		for _, p := range argv {
			if p != nil {
				C.free(unsafe.Pointer(p))
			}
		}
	}()
	cargv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	defer C.free(unsafe.Pointer(cargv))
	copy(unsafe.Slice(cargv, len(argv)), argv)
	conn := C.chdb_connect_c(C.int(len(args)), cargv)
	if conn == nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("chdb: chdb_connect %q failed", args)
	}
	e := &Engine{conn: conn, dir: dir}
	openEng = e
	return e, nil
}

// Dir returns the engine's private data directory.
func (e *Engine) Dir() string { return e.dir }

// Version returns the chDB library version (chdb_version), e.g. "26.7.3".
func (e *Engine) Version() string { return C.GoString(C.chdb_version_c()) }

// Query runs sql and returns the raw output in format (e.g. "TabSeparated",
// "Native", "JSONEachRow"). A FORMAT clause in sql takes precedence. sql may
// contain arbitrary bytes (binary-safe). Several statements separated by ';'
// are allowed; their outputs are concatenated. Session state (SET, USE,
// temporary tables) persists across calls on the same Engine.
func (e *Engine) Query(sql, format string) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		return nil, errors.New("chdb: engine is closed")
	}
	var (
		q, f *C.char
		buf  *C.char
		n    C.size_t
		cerr *C.char
	)
	// NUL-terminate as well, so an empty string still gets a valid pointer.
	q = (*C.char)(C.CBytes(append([]byte(sql), 0)))
	defer C.free(unsafe.Pointer(q))
	f = (*C.char)(C.CBytes(append([]byte(format), 0)))
	defer C.free(unsafe.Pointer(f))
	r := C.chdb_query_c(e.conn, q, C.size_t(len(sql)), f, C.size_t(len(format)), &buf, &n, &cerr)
	defer C.chdb_destroy_c(r)
	if r == nil {
		return nil, &Error{Query: sql, Message: "chdb_query_n returned NULL"}
	}
	if cerr != nil {
		return nil, &Error{Query: sql, Message: C.GoString(cerr)}
	}
	if buf == nil || n == 0 {
		return []byte{}, nil
	}
	out := make([]byte, int(n))
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n)))
	return out, nil
}

// Close closes the connection and removes the data directory. After Close
// another Engine may be opened.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		return nil
	}
	C.chdb_close_c(e.conn)
	e.conn = nil
	engineMu.Lock()
	if openEng == e {
		openEng = nil
	}
	engineMu.Unlock()
	return os.RemoveAll(e.dir)
}
