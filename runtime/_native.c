/* cutile's compiled launch path (runtime/native.py installs it; tests/runtime/test_native.py
   holds it to the Python path).

   Each piece is the compiled twin of Python that stays as its fallback, so no rule lives here
   alone: anything a piece does not take (another class, a NumPy number, a failed check, the
   switch off: `set_enabled`) goes to its twin, which decides as before.
   - Runner: a plan's launcher (fastpath.py's `run`): value checks, Mut handoffs, the LaunchOp,
     moves and leases, reading and writing the handles' slots by offset;
   - Linker: launch.py's `_launch` (and `_unchecked_linked`) for the usual call: the plan by the
     handles' descriptor ids, then its Runner;
   - `then` and `complete`: DeviceOp.then from user code and LaunchOp._complete;
   - `step`: one link of ChainOp._run_start (complete, launch, enqueue);
   - Launcher: a CUDA executable's enqueue (pack.py's `runner`): buffers learn the stream, the
     parameter block on the C stack (threads never share it), cuLaunchKernel with the GIL
     released.
   Slot offsets, classes and constants come from Python once (`configure`, `then_method`). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>  /* PyMemberDef: a slot descriptor's offset */
#include <math.h>
#include <string.h>

#define VERSION 11
#define MAX_BLOCK 4096
#define MAX_SLOTS 512
#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shmem, void *stream, void **params,
                         void **extra);

/* ---- configuration (configure(): once per process) ------------------------------------ */

enum { O_STATE, O_HOW, O_SITE, O_OP, O_LEASES,                      /* Owned */
       P_BASE, P_REGION, P_TENSOR, P_KID, P_TILE, P_ORDER, P_BLOCKS, P_GRID, P_TILING,
       T_BASE, T_REGION, T_BUF, T_SHAPE, T_STRIDES, T_KID, T_BACKEND, T_OFFSET, T_DTYPE,
       L_PHASE, L_BACKEND, L_STREAM, L_SITE, L_GRAPHED, L_GRAPH_SITE, L_NAME, L_EXE,
       L_GET_EXE, L_ARGS, L_GRID, L_DONE, L_MUTS, L_READS, L_REF, L_RESULTS, /* LaunchOp */
       N_OFFSETS };

static Py_ssize_t off[N_OFFSETS];
static Py_ssize_t *part_slots;  /* every Partition slot but __weakref__ (a handoff copies them) */
static Py_ssize_t n_part_slots;
static PyTypeObject *partition_t, *tensor_t, *op_t;
static PyObject *moved, *exclusive, *created, *ctx, *local, *launch_target, *partial, *live,
    *done, *empty;
static PyTypeObject *owned_t;
static PyObject *s_target, *s_stream, *s_handoff, *s_lease, *s_exe, *s_backend, *s_executable,
    *s_streams;
static int configured;
static int enabled = 1;  /* set_enabled(False): every entry point takes its Python twin */

static int member_offset(PyObject *cls, const char *name, Py_ssize_t *out) {
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL) return -1;
    if (!PyObject_TypeCheck(d, &PyMemberDescr_Type)) {
        Py_DECREF(d);
        PyErr_Format(PyExc_TypeError, "%s is not a slot", name);
        return -1;
    }
    *out = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

static const char *const names[N_OFFSETS] = {
    "_state", "_how", "_site", "_op", "_leases",
    "_base", "_region", "_tensor", "_kid", "tile", "order", "blocks", "grid", "tiling",
    "_base", "_region", "_buf", "_shape", "_strides", "_kid", "_backend", "_offset", "_dtype",
    "phase", "backend", "stream", "site", "_graphed", "_graph_site", "kernel_name", "_exe",
    "_get_exe", "_args", "_grid", "_done_event", "_muts", "_reads", "_ref", "_results"};

static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *part, *tens, *op, *pslots;
    PyObject *owned;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OOOOOOOOO", &PyType_Type, &part, &PyType_Type, &tens,
                          &PyType_Type, &op, &PyType_Type, &owned, &PyTuple_Type, &pslots,
                          &moved, &exclusive, &created, &ctx, &local, &launch_target, &partial,
                          &live, &done))
        return NULL;
    for (int k = 0; k < N_OFFSETS; k++) {
        PyObject *cls = k < T_BASE ? part : k < L_PHASE ? tens : op;
        if (member_offset(cls, names[k], &off[k]) < 0) return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(pslots);
    part_slots = PyMem_Malloc(sizeof(Py_ssize_t) * (n ? n : 1));
    if (part_slots == NULL) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *name = PyTuple_GET_ITEM(pslots, k);
        if (!PyUnicode_Check(name) || member_offset(part, PyUnicode_AsUTF8(name),
                                                    &part_slots[k]) < 0)
            return NULL;
    }
    n_part_slots = n;
    partition_t = (PyTypeObject *)Py_NewRef(part);
    tensor_t = (PyTypeObject *)Py_NewRef(tens);
    op_t = (PyTypeObject *)Py_NewRef(op);
    owned_t = (PyTypeObject *)Py_NewRef(owned);
    empty = PyTuple_New(0);
    PyObject *keep[] = {moved, exclusive, created, ctx, local, launch_target, partial, live, done};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) Py_INCREF(keep[k]);
    configured = 1;
    Py_RETURN_NONE;
}

/* A callable, garbage-collected type `name` whose functions are `prefix`_new, _call, ... */
#define CALLABLE_TYPE(name, prefix, doc) {                                                    \
    PyVarObject_HEAD_INIT(NULL, 0)                                                           \
    .tp_name = "cutile.runtime._native." #name, .tp_basicsize = sizeof(name),              \
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, .tp_new = prefix##_new,              \
    .tp_call = (ternaryfunc)prefix##_call, .tp_traverse = (traverseproc)prefix##_traverse,    \
    .tp_clear = (inquiry)prefix##_clear, .tp_dealloc = (destructor)prefix##_dealloc,          \
    .tp_doc = doc}

static void set_slot(PyObject *o, Py_ssize_t at, PyObject *v) {
    PyObject *old = SLOT(o, at);
    SLOT(o, at) = Py_NewRef(v);
    Py_XDECREF(old);
}

/* `h` (an ownership record) is moved `how` at `site`, into the launch `op` (its weak
   reference; None for a move by a method): Owned._move. */
static void move(PyObject *h, PyObject *how, PyObject *site, PyObject *op) {
    set_slot(h, off[O_STATE], moved);
    set_slot(h, off[O_HOW], how);
    set_slot(h, off[O_SITE], site);
    set_slot(h, off[O_OP], op);
}

/* LaunchOp._complete (ops.py): the work is done, so the Mut handles are live again and the
   launch's leases end; what the method did in Python, as a method of the class
   (`complete_method`). A handle that is not an ownership record: the Python method. */
static PyObject *s_release, *s_complete_py, *s_del_py;

/* Whether `indices` (a tuple) are all positions in `args` (a list) of ownership records. */
static int owned_at(PyObject *indices, PyObject *args) {
    if (indices == NULL || !PyTuple_Check(indices)) return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(indices); k++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(indices, k));
        if (i < 0 || i >= PyList_GET_SIZE(args)
            || !PyObject_TypeCheck(PyList_GET_ITEM(args, i), owned_t))
            return 0;
    }
    return 1;
}

static PyObject *complete(PyObject *op, PyObject *unused) {
    if (!enabled) return PyObject_CallMethodNoArgs(op, s_complete_py);
    if (SLOT(op, off[L_PHASE]) == done) Py_RETURN_NONE;
    PyObject *args = SLOT(op, off[L_ARGS]), *muts = SLOT(op, off[L_MUTS]);
    PyObject *reads = SLOT(op, off[L_READS]), *ref = SLOT(op, off[L_REF]);
    int plain = args != NULL && PyList_CheckExact(args) && owned_at(muts, args)
        && owned_at(reads, args);
    if (!plain) {
        PyErr_Clear();
        return PyObject_CallMethodNoArgs(op, s_complete_py);
    }
    set_slot(op, off[L_PHASE], done);
    /* held while `_release` (Python) runs: it could rebind the op's slots */
    Py_INCREF(args); Py_INCREF(muts); Py_INCREF(reads); Py_XINCREF(ref);
    PyObject *result = Py_None;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(muts); k++)
        set_slot(PyList_GET_ITEM(args, PyLong_AsSsize_t(PyTuple_GET_ITEM(muts, k))), off[O_STATE],
                 live);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(reads) && result != NULL; k++) {
        PyObject *v = PyList_GET_ITEM(args, PyLong_AsSsize_t(PyTuple_GET_ITEM(reads, k)));
        if (SLOT(v, off[O_LEASES]) == ref && ref != NULL) {
            set_slot(v, off[O_LEASES], Py_None);
        } else {
            PyObject *res = PyObject_CallMethodOneArg(v, s_release, ref ? ref : Py_None);
            if (res == NULL) result = NULL;
            Py_XDECREF(res);
        }
    }
    if (result != NULL) set_slot(op, off[L_ARGS], empty);
    Py_DECREF(args); Py_DECREF(muts); Py_DECREF(reads); Py_XDECREF(ref);
    return Py_XNewRef(result);
}

static PyMethodDef complete_def = {"_complete", complete, METH_NOARGS,
                                   "The work is done: end the leases, return the handles."};

static PyObject *complete_method(PyObject *self, PyObject *unused) {
    if (!configured) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    return PyDescr_NewMethod(op_t, &complete_def);
}

/* LaunchOp.__del__: only a launch never started has anything to say (CT305), and that is the
   Python method's to decide; every other op ends here without a Python frame. */
static PyObject *finalize(PyObject *op, PyObject *unused) {
    PyObject *phase = SLOT(op, off[L_PHASE]);
    if (enabled && phase != NULL && phase != created) Py_RETURN_NONE;
    return PyObject_CallMethodNoArgs(op, s_del_py);
}

static PyMethodDef finalize_def = {"__del__", finalize, METH_NOARGS,
                                   "Warns of a launch that is never run (CT305)."};

static PyObject *finalize_method(PyObject *self, PyObject *unused) {
    if (!configured) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    return PyDescr_NewMethod(op_t, &finalize_def);
}

/* DeviceOp.then (ops.py) for a call from user code: the link's site from the caller's frame and
   the ChainOp filled in place; any other call (a graphed op, a call from inside cutile, whose
   site needs the frame walk): the Python method, `_then_py`. */
enum { C_FIRST, C_FN, C_NEXT, C_RESULTS, C_CHECKS, N_CHAIN };
static Py_ssize_t chain_off[N_CHAIN];
static PyTypeObject *chain_t, *link_site_t, *kernel_t;
static PyObject *started;  /* Phase.ENQUEUED */
static PyObject *unchecked_fn;  /* launch.py's launch_unchecked: Kernel.unchecked's function */
static PyObject *internal_files, *s_then_py, *s_call_py;
static PyTypeObject *site_t;  /* sites.py's Site */
static PyObject *linked;  /* launch.py's launch_linked (kernel, site, args) */
static PyObject *handle_id_fn;  /* plans.py's handle_id: a new handle's descriptor id */

/* self.<name>(*args, **kw): a compiled method's Python twin. */
static PyObject *python_twin(PyObject *self, PyObject *name, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *method = PyObject_GetAttr(self, name);
    if (method == NULL) return NULL;
    PyObject *res = PyObject_Vectorcall(method, args, nargs, kwnames);
    Py_DECREF(method);
    return res;
}

static PyObject *tuple_of(PyObject *const *items, Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t k = 0; t != NULL && k < n; k++) PyTuple_SET_ITEM(t, k, Py_NewRef(items[k]));
    return t;
}

/* `type(pair)` (pair: a new reference, or NULL on an error), kept out of the cycle collector:
   a code object and an int make no cycle, and a chain's sites live as long as the chain. */
static PyObject *site_from(PyTypeObject *type, PyObject *pair) {
    PyObject *site = pair ? PyObject_CallOneArg((PyObject *)type, pair) : NULL;
    Py_XDECREF(pair);
    if (site != NULL && PyObject_GC_IsTracked(site)) PyObject_GC_UnTrack(site);
    return site;
}

/* The call site in user code, `type((code, lasti))` of the caller's frame; NULL with no error
   when the caller is not user code (cutile's own frames: the Python twin walks them). */
static PyObject *user_site(PyTypeObject *type) {
    PyFrameObject *frame = PyEval_GetFrame();  /* borrowed: the caller's (C pushes none) */
    if (frame == NULL) return NULL;
    PyCodeObject *code = PyFrame_GetCode(frame);
    PyObject *inside = PyDict_GetItemWithError(internal_files, code->co_filename);
    if (inside != Py_False) {
        Py_DECREF(code);
        return NULL;
    }
    return site_from(type, Py_BuildValue("(Ni)", (PyObject *)code, PyFrame_GetLasti(frame)));
}

static PyObject *then(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames) {
    if (!enabled || nargs != 1 || kwnames != NULL || SLOT(self, off[L_GRAPHED]) != Py_False)
        return python_twin(self, s_then_py, args, nargs, kwnames);
    PyObject *fn = args[0], *site = user_site(link_site_t);
    if (site == NULL)
        return PyErr_Occurred() ? NULL : python_twin(self, s_then_py, args, nargs, kwnames);
    PyObject *op = chain_t->tp_alloc(chain_t, 0);
    if (op == NULL) { Py_DECREF(site); return NULL; }
    SLOT(op, off[L_PHASE]) = Py_NewRef(created);
    SLOT(op, off[L_BACKEND]) = Py_XNewRef(SLOT(self, off[L_BACKEND]));
    SLOT(op, off[L_STREAM]) = Py_XNewRef(SLOT(self, off[L_STREAM]));
    SLOT(op, off[L_SITE]) = site;
    SLOT(op, off[L_GRAPHED]) = Py_NewRef(Py_False);
    SLOT(op, off[L_GRAPH_SITE]) = Py_NewRef(Py_None);
    SLOT(op, chain_off[C_FIRST]) = Py_NewRef(self);
    SLOT(op, chain_off[C_FN]) = Py_NewRef(fn);
    SLOT(op, chain_off[C_NEXT]) = Py_NewRef(Py_None);
    SLOT(op, chain_off[C_RESULTS]) = Py_NewRef(empty);
    SLOT(op, chain_off[C_CHECKS]) = Py_NewRef(Py_None);
    return op;
}

static PyMethodDef then_def = {
    "then", (PyCFunction)(void (*)(void))then, METH_FASTCALL | METH_KEYWORDS,
    "then($self, fn)\n--\n\nfn(*results) builds the next op; the chain's result is its."};

/* then_method(DeviceOp, ChainOp, LinkSite, internal_files, Kernel, Phase.ENQUEUED,
   launch_unchecked, Site, launch_linked, handle_id): DeviceOp.then in C; also readies `step` and
   `call_method` (Kernel.__call__) for that kernel class. */
static PyObject *then_method(PyObject *self, PyObject *args) {
    PyObject *device_op, *chain, *site, *files, *kernel, *enqueued, *unchecked, *plain_site,
        *linker, *kid_fn;
    static const char *const chain_names[N_CHAIN] = {"_first", "_fn", "_next", "_results",
                                                     "_checks"};
    if (!configured) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OOO!OO", &PyType_Type, &device_op, &PyType_Type,
                          &chain, &PyType_Type, &site, &PyDict_Type, &files, &PyType_Type,
                          &kernel, &enqueued, &unchecked, &PyType_Type, &plain_site, &linker,
                          &kid_fn))
        return NULL;
    for (int k = 0; k < N_CHAIN; k++)
        if (member_offset(chain, chain_names[k], &chain_off[k]) < 0) return NULL;
    Py_ssize_t phase;  /* DeviceOp's slots: where LaunchOp has them */
    if (member_offset(chain, "phase", &phase) < 0) return NULL;
    if (phase != off[L_PHASE]) {
        PyErr_SetString(PyExc_TypeError, "ChainOp and LaunchOp lay out DeviceOp differently");
        return NULL;
    }
    Py_XSETREF(chain_t, (PyTypeObject *)Py_NewRef(chain));
    Py_XSETREF(link_site_t, (PyTypeObject *)Py_NewRef(site));
    Py_XSETREF(internal_files, Py_NewRef(files));
    Py_XSETREF(kernel_t, (PyTypeObject *)Py_NewRef(kernel));
    Py_XSETREF(started, Py_NewRef(enqueued));
    Py_XSETREF(unchecked_fn, Py_NewRef(unchecked));
    Py_XSETREF(site_t, (PyTypeObject *)Py_NewRef(plain_site));
    Py_XSETREF(linked, Py_NewRef(linker));
    Py_XSETREF(handle_id_fn, Py_NewRef(kid_fn));
    return PyDescr_NewMethod((PyTypeObject *)device_op, &then_def);
}

/* ---- Runner ------------------------------------------------------------------------------ */

typedef struct { Py_ssize_t i; long long lo, hi; } IntCheck;
typedef struct { Py_ssize_t i; double bound; int bounded; } FloatCheck;
typedef struct { Py_ssize_t i, j; long long lo, hi; } AliasCheck;

typedef struct {
    PyObject_HEAD
    PyObject *plan, *fallback, *name, *how, *grid, *tail, *muts, *reads;
    Py_ssize_t n, n_owned, n_ints, n_floats, n_alias;
    Py_ssize_t *owned;  /* owned parameter indices, then per owned one 1 for a partition */
    IntCheck *ints;
    FloatCheck *floats;
    AliasCheck *alias;
} Runner;

static int runner_traverse(Runner *r, visitproc visit, void *arg) {
    Py_VISIT(r->plan); Py_VISIT(r->fallback); Py_VISIT(r->name); Py_VISIT(r->how);
    Py_VISIT(r->grid); Py_VISIT(r->tail); Py_VISIT(r->muts); Py_VISIT(r->reads);
    return 0;
}

static int runner_clear(Runner *r) {
    Py_CLEAR(r->plan); Py_CLEAR(r->fallback); Py_CLEAR(r->name); Py_CLEAR(r->how);
    Py_CLEAR(r->grid); Py_CLEAR(r->tail); Py_CLEAR(r->muts); Py_CLEAR(r->reads);
    return 0;
}

static void runner_dealloc(Runner *r) {
    PyObject_GC_UnTrack(r);
    runner_clear(r);
    PyMem_Free(r->owned); PyMem_Free(r->ints); PyMem_Free(r->floats); PyMem_Free(r->alias);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static int as_ll(PyObject *v, long long *out) {
    int overflow;
    *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) return -1;
    return (*out == -1 && PyErr_Occurred()) ? -2 : 0;
}

/* A tuple of int tuples of width `w` into `count` rows of long longs (NULL for none). */
static long long *int_rows(PyObject *t, int w, Py_ssize_t *count) {
    if (!PyTuple_Check(t)) { PyErr_SetString(PyExc_TypeError, "expected a tuple"); return NULL; }
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    long long *rows = PyMem_Calloc(n ? n * w : 1, sizeof(long long));
    if (rows == NULL) { PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *row = PyTuple_GET_ITEM(t, k);
        for (int c = 0; c < w; c++) {
            PyObject *v = PyTuple_Check(row) && PyTuple_GET_SIZE(row) == w
                ? PyTuple_GET_ITEM(row, c) : NULL;
            if (v == NULL || as_ll(v, &rows[k * w + c]) != 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad int row");
                PyMem_Free(rows);
                return NULL;
            }
        }
    }
    *count = n;
    return rows;
}

/* Runner(plan, fallback, n, name, how, grid, tail, muts, reads, owned, partitions, ints,
   floats, aliases): ints rows (i, lo, hi) clamped to int64, floats rows (i, bound or None),
   aliases rows (i, j, lo, hi); `partitions` per owned parameter, whether it is a Partition. */
static PyObject *runner_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *plan, *fallback, *name, *how, *grid, *tail, *muts, *reads, *owned, *parts, *ints,
        *floats, *aliases;
    Py_ssize_t n;
    if (!configured) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    if (!PyArg_ParseTuple(args, "OOnOOOO!O!O!O!O!O!O!O!", &plan, &fallback, &n, &name, &how,
                          &grid, &PyTuple_Type, &tail, &PyTuple_Type, &muts, &PyTuple_Type,
                          &reads, &PyTuple_Type, &owned, &PyTuple_Type, &parts, &PyTuple_Type,
                          &ints, &PyTuple_Type, &floats, &PyTuple_Type, &aliases))
        return NULL;
    Runner *r = (Runner *)type->tp_alloc(type, 0);
    if (r == NULL) return NULL;
    r->plan = Py_NewRef(plan); r->fallback = Py_NewRef(fallback); r->name = Py_NewRef(name);
    r->how = Py_NewRef(how); r->grid = Py_NewRef(grid); r->tail = Py_NewRef(tail);
    r->muts = Py_NewRef(muts); r->reads = Py_NewRef(reads);
    r->n = n;
    Py_ssize_t no = PyTuple_GET_SIZE(owned);
    r->n_owned = no;
    r->owned = PyMem_Calloc(2 * no + 1, sizeof(Py_ssize_t));
    if (r->owned == NULL) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t k = 0; k < no; k++) {
        r->owned[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(owned, k));
        r->owned[no + k] = PyObject_IsTrue(PyTuple_GET_ITEM(parts, k));
        if (r->owned[k] < 0 || r->owned[k] >= n) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad parameter index");
            goto fail;
        }
    }
    long long *rows;
    if ((rows = int_rows(ints, 3, &r->n_ints)) == NULL) goto fail;
    r->ints = PyMem_Calloc(r->n_ints + 1, sizeof(IntCheck));
    for (Py_ssize_t k = 0; r->ints && k < r->n_ints; k++)
        r->ints[k] = (IntCheck){(Py_ssize_t)rows[3 * k], rows[3 * k + 1], rows[3 * k + 2]};
    PyMem_Free(rows);
    if ((rows = int_rows(aliases, 4, &r->n_alias)) == NULL) goto fail;
    r->alias = PyMem_Calloc(r->n_alias + 1, sizeof(AliasCheck));
    for (Py_ssize_t k = 0; r->alias && k < r->n_alias; k++)
        r->alias[k] = (AliasCheck){(Py_ssize_t)rows[4 * k], (Py_ssize_t)rows[4 * k + 1],
                                   rows[4 * k + 2], rows[4 * k + 3]};
    PyMem_Free(rows);
    if (r->ints == NULL || r->alias == NULL) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t k = 0; k < r->n_ints; k++)
        if (r->ints[k].i < 0 || r->ints[k].i >= n) goto bad_index;
    for (Py_ssize_t k = 0; k < r->n_alias; k++)
        if (r->alias[k].i < 0 || r->alias[k].i >= n || r->alias[k].j < 0 || r->alias[k].j >= n)
            goto bad_index;
    r->n_floats = PyTuple_GET_SIZE(floats);
    r->floats = PyMem_Calloc(r->n_floats + 1, sizeof(FloatCheck));
    if (r->floats == NULL) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t k = 0; k < r->n_floats; k++) {
        PyObject *row = PyTuple_GET_ITEM(floats, k), *b;
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 2) {
            PyErr_SetString(PyExc_ValueError, "bad float row");
            goto fail;
        }
        r->floats[k].i = PyLong_AsSsize_t(PyTuple_GET_ITEM(row, 0));
        if (r->floats[k].i < 0 || r->floats[k].i >= n) goto bad_index;
        b = PyTuple_GET_ITEM(row, 1);
        r->floats[k].bounded = b != Py_None;
        r->floats[k].bound = b == Py_None ? 0.0 : PyFloat_AsDouble(b);
        if (PyErr_Occurred()) goto fail;
    }
    return (PyObject *)r;
bad_index:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad parameter index");
fail:
    Py_DECREF(r);
    return NULL;
}

/* 1: the value checks pass; 0: leave this launch to the fallback. */
static int checks_pass(Runner *r, PyObject **a) {
    for (Py_ssize_t k = 0; k < r->n_owned; k++) {
        PyObject *v = a[r->owned[k]];
        int part = (int)r->owned[r->n_owned + k];
        if (Py_TYPE(v) != (part ? partition_t : tensor_t)) return 0;
        PyObject *state = SLOT(v, off[O_STATE]), *region = SLOT(v, off[part ? P_REGION : T_REGION]);
        if (state == NULL || state == moved || region != Py_None) return 0;
    }
    for (Py_ssize_t k = 0; k < r->n_ints; k++) {
        long long x;
        PyObject *v = a[r->ints[k].i];
        if (!PyLong_CheckExact(v) || as_ll(v, &x) != 0) { PyErr_Clear(); return 0; }
        if (x < r->ints[k].lo || x > r->ints[k].hi) return 0;
    }
    for (Py_ssize_t k = 0; k < r->n_floats; k++) {
        PyObject *v = a[r->floats[k].i];
        if (!PyFloat_CheckExact(v)) return 0;  /* ints and NumPy numbers: the fallback */
        double x = PyFloat_AS_DOUBLE(v), b = r->floats[k].bound;
        if (r->floats[k].bounded && isfinite(x) && !(-b < x && x < b)) return 0;
    }
    for (Py_ssize_t k = 0; k < r->n_alias; k++) {
        PyObject *u = a[r->alias[k].i], *w = a[r->alias[k].j];
        PyObject *bu = SLOT(u, off[Py_TYPE(u) == partition_t ? P_BASE : T_BASE]);
        PyObject *bw = SLOT(w, off[Py_TYPE(w) == partition_t ? P_BASE : T_BASE]);
        long long x, y;
        if (bu == NULL || bw == NULL || as_ll(bu, &x) != 0 || as_ll(bw, &y) != 0) {
            PyErr_Clear();
            return 0;
        }
        long long d = y - x;  /* addresses below 2**63: no overflow */
        if (r->alias[k].lo < d && d < r->alias[k].hi) return 0;  /* maybe overlapping */
    }
    return 1;
}

/* (backend, stream) of launch_target(), its usual case inlined as fastpath.py does. */
static int target(PyObject **be, PyObject **stream) {
    PyObject *t = PyObject_GetAttr(ctx, s_target);
    int inlined = t != Py_None;  /* None: no backend chosen yet, launch_target() chooses */
    if (!inlined) {
        Py_DECREF(t);
        t = PyObject_CallNoArgs(launch_target);
    }
    if (t == NULL) return -1;
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_TypeError, "the launch target is not a (backend, stream) pair");
        return -1;
    }
    *be = Py_NewRef(PyTuple_GET_ITEM(t, 0));
    *stream = Py_NewRef(PyTuple_GET_ITEM(t, 1));
    Py_DECREF(t);
    if (!inlined) return 0;  /* launch_target() read the thread's stream itself */
    PyObject *current = PyObject_GetAttr(local, s_stream);
    if (current == NULL) { Py_DECREF(*be); Py_DECREF(*stream); return -1; }
    if (current != Py_None) Py_SETREF(*stream, current);
    else Py_DECREF(current);
    return 0;
}

static PyObject *handoff(PyObject *v, int part) {
    if (!part) return PyObject_CallMethodNoArgs(v, s_handoff);
    PyObject *n = partition_t->tp_alloc(partition_t, 0);
    if (n == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n_part_slots; k++) {
        PyObject *x = SLOT(v, part_slots[k]);
        SLOT(n, part_slots[k]) = Py_XNewRef(x);
    }
    set_slot(n, off[O_STATE], exclusive);
    set_slot(n, off[O_LEASES], Py_None);
    return n;
}

/* The plan's executable when it was made for `be` (LaunchPlan.executable's cache), else None;
   NULL with an error set. */
static PyObject *plan_exe(PyObject *plan, PyObject *be) {
    PyObject *plan_be = PyObject_GetAttr(plan, s_backend);
    if (plan_be == NULL) return NULL;
    PyObject *exe = plan_be == be ? PyObject_GetAttr(plan, s_exe) : Py_NewRef(Py_None);
    Py_DECREF(plan_be);
    return exe;
}

/* Where a plan's launch goes: launch_target()'s backend and stream, and the plan's executable
   for that backend (None: not made yet); new references, read once per launch. */
typedef struct { PyObject *be, *stream, *exe; } Target;

static int target_of(PyObject *plan, Target *t) {
    if (target(&t->be, &t->stream) < 0) return -1;
    t->exe = plan_exe(plan, t->be);
    if (t->exe != NULL) return 0;
    Py_DECREF(t->be);
    Py_DECREF(t->stream);
    return -1;
}

static void target_clear(Target *t) {
    Py_DECREF(t->be);
    Py_DECREF(t->stream);
    Py_DECREF(t->exe);
}

/* The launch's op, CREATED, its values in place; NULL with an error set. */
static PyObject *new_op(Runner *r, PyObject *kernel, PyObject *site, const Target *t,
                        PyObject *values) {
    PyObject *get;
    if (t->exe == Py_None) {
        PyObject *method = PyObject_GetAttr(r->plan, s_executable);
        get = method ? PyObject_CallFunctionObjArgs(partial, method, kernel, t->be, NULL) : NULL;
        Py_XDECREF(method);
        if (get == NULL) return NULL;
    } else {
        get = Py_NewRef(Py_None);
    }
    PyObject *op = op_t->tp_alloc(op_t, 0);
    if (op == NULL) { Py_DECREF(get); return NULL; }
    SLOT(op, off[L_EXE]) = Py_NewRef(t->exe);
    SLOT(op, off[L_GET_EXE]) = get;
    SLOT(op, off[L_PHASE]) = Py_NewRef(created);
    SLOT(op, off[L_BACKEND]) = Py_NewRef(t->be);
    SLOT(op, off[L_STREAM]) = Py_NewRef(t->stream);
    SLOT(op, off[L_SITE]) = Py_NewRef(site);
    SLOT(op, off[L_GRAPHED]) = Py_NewRef(Py_False);
    SLOT(op, off[L_GRAPH_SITE]) = Py_NewRef(Py_None);
    SLOT(op, off[L_NAME]) = Py_NewRef(r->name);
    SLOT(op, off[L_ARGS]) = Py_NewRef(values);
    SLOT(op, off[L_GRID]) = Py_NewRef(r->grid);
    SLOT(op, off[L_DONE]) = Py_NewRef(Py_None);
    SLOT(op, off[L_MUTS]) = Py_NewRef(r->muts);
    SLOT(op, off[L_READS]) = Py_NewRef(r->reads);
    return op;
}

/* The launch's values: its arguments `a`, then the plan's Consts (LaunchPlan.values). */
static PyObject *plan_values(Runner *r, PyObject *a) {
    Py_ssize_t n = r->n, nt = PyTuple_GET_SIZE(r->tail);
    PyObject *values = PyList_New(n + nt);
    if (values == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++)
        PyList_SET_ITEM(values, k, Py_NewRef(PyTuple_GET_ITEM(a, k)));
    for (Py_ssize_t k = 0; k < nt; k++)
        PyList_SET_ITEM(values, n + k, Py_NewRef(PyTuple_GET_ITEM(r->tail, k)));
    return values;
}

/* The launch of `a` (a tuple) to `t` by its plan's runner: the op, or NULL with an error
   set, or NULL with no error when the fallback must decide. */
static PyObject *run_plan(Runner *r, PyObject *kernel, PyObject *a, PyObject *site,
                          const Target *t) {
    Py_ssize_t n = r->n;
    if (PyTuple_GET_SIZE(a) != n || !checks_pass(r, ((PyTupleObject *)a)->ob_item)) return NULL;
    PyObject *values = plan_values(r, a), *op = NULL, *ref = NULL, *results = NULL;
    if (values == NULL) goto done;
    Py_ssize_t nm = PyTuple_GET_SIZE(r->muts);
    for (Py_ssize_t k = 0; k < nm; k++) {  /* the muts come first in `owned` */
        Py_ssize_t i = r->owned[k];
        PyObject *h = handoff(PyTuple_GET_ITEM(a, i), (int)r->owned[r->n_owned + k]);
        if (h == NULL) goto done;
        PyList_SetItem(values, i, h);  /* steals h, drops the caller's handle */
    }
    op = new_op(r, kernel, site, t, values);
    if (op == NULL) goto done;
    ref = PyWeakref_NewRef(op, NULL);
    if (ref == NULL) goto done;
    SLOT(op, off[L_REF]) = Py_NewRef(ref);
    results = PyTuple_New(n);
    if (results == NULL) goto done;
    for (Py_ssize_t k = 0; k < n; k++)
        PyTuple_SET_ITEM(results, k, Py_NewRef(PyList_GET_ITEM(values, k)));
    SLOT(op, off[L_RESULTS]) = results;
    for (Py_ssize_t k = 0; k < nm; k++) move(PyTuple_GET_ITEM(a, r->owned[k]), r->how, site, ref);
    for (Py_ssize_t k = nm; k < r->n_owned; k++) {
        PyObject *v = PyTuple_GET_ITEM(a, r->owned[k]);
        if (SLOT(v, off[O_LEASES]) == Py_None) {
            set_slot(v, off[O_LEASES], ref);
        } else {
            PyObject *res = PyObject_CallMethodOneArg(v, s_lease, ref);
            if (res == NULL) { Py_CLEAR(op); goto done; }
            Py_DECREF(res);
        }
    }
done:
    Py_XDECREF(values);
    Py_XDECREF(ref);
    if (op == NULL && !PyErr_Occurred())
        PyErr_SetString(PyExc_SystemError, "launch failed without an error");
    return op;
}

/* `kernel.unchecked(*a)` by its plan (launch.py's _launch_unchecked): the op takes the
   arguments as they are and hands the same objects back; no checks, moves or leases. */
static PyObject *run_unchecked(Runner *r, PyObject *kernel, PyObject *a, PyObject *site,
                               const Target *t) {
    if (PyTuple_GET_SIZE(a) != r->n) return NULL;
    PyObject *op = NULL, *values = plan_values(r, a);
    if (values != NULL) {
        op = new_op(r, kernel, site, t, values);
        Py_DECREF(values);
    }
    if (op != NULL) {
        set_slot(op, off[L_MUTS], empty);
        set_slot(op, off[L_READS], empty);
        SLOT(op, off[L_REF]) = Py_NewRef(Py_None);
        SLOT(op, off[L_RESULTS]) = Py_NewRef(a);
    }
    return op;
}

/* run_plan (or run_unchecked) to the current target, read here. */
static PyObject *run_here(Runner *r, PyObject *kernel, PyObject *a, PyObject *site,
                          int unchecked) {
    Target t;
    if (target_of(r->plan, &t) < 0) return NULL;
    PyObject *op = unchecked ? run_unchecked(r, kernel, a, site, &t)
                             : run_plan(r, kernel, a, site, &t);
    target_clear(&t);
    return op;
}

/* run(kernel, args, site): the started-ready LaunchOp, or what the fallback returns. */
static PyObject *runner_call(Runner *r, PyObject *args, PyObject *kw) {
    PyObject *kernel, *a, *site;
    if (!PyArg_ParseTuple(args, "OO!O", &kernel, &PyTuple_Type, &a, &site)) return NULL;
    PyObject *op = enabled ? run_here(r, kernel, a, site, 0) : NULL;
    if (op == NULL && !PyErr_Occurred()) return PyObject_Call(r->fallback, args, NULL);
    return op;
}

static PyTypeObject RunnerType;

/* link(kernel, site, args): launch.py's `_launch` for the usual call (handles only, each with
   its descriptor id, a plan with a compiled runner), or `_launch` itself. */
typedef struct {
    PyObject_HEAD
    PyObject *fallback;
    int unchecked;  /* links of `kernel.unchecked` bound methods (launch_unchecked_linked) */
} Linker;


/* The kernel a link's callable launches and whether unchecked, or NULL: not a launch. */
static PyObject *link_kernel(PyObject *fn, int *unchecked) {
    if (kernel_t != NULL && Py_TYPE(fn) == kernel_t) { *unchecked = 0; return fn; }
    if (Py_TYPE(fn) == &PyMethod_Type && unchecked_fn != NULL
        && PyMethod_GET_FUNCTION(fn) == unchecked_fn
        && Py_TYPE(PyMethod_GET_SELF(fn)) == kernel_t) {
        *unchecked = 1;
        return PyMethod_GET_SELF(fn);
    }
    return NULL;
}

static PyObject *s_plans, *s_dict, *s_handles, *s_run, *s_prefix, *s_index, *s_kinds;

/* A handle's part of a plan's key, its descriptor id (a new reference; plans.py's handle_id
   computes a new handle's), or NULL: not a tensor or partition of the exact classes. */
static PyObject *handle_kid(PyObject *v) {
    PyObject *kid;
    if (Py_TYPE(v) == partition_t) kid = SLOT(v, off[P_KID]);
    else if (Py_TYPE(v) == tensor_t) kid = SLOT(v, off[T_KID]);
    else return NULL;
    if (kid == NULL || !PyLong_CheckExact(kid)) return NULL;
    if (PyLong_AsLong(kid) != 0) return Py_NewRef(kid);
    return handle_id_fn ? PyObject_CallOneArg(handle_id_fn, v) : NULL;  /* 0: not computed */
}

/* A keyword argument's part of the key, as plans.py's _describe makes it: a handle's id, a
   Const's (class, value); NULL for anything else (Plans.lookup decides). */
static PyObject *keyword_part(PyObject *plans, PyObject *name, PyObject *v) {
    if (Py_TYPE(v) == partition_t || Py_TYPE(v) == tensor_t) return handle_kid(v);
    PyObject *index = PyObject_GetAttr(plans, s_index), *kinds = PyObject_GetAttr(plans, s_kinds);
    PyObject *at = index && PyDict_CheckExact(index) ? PyDict_GetItemWithError(index, name) : NULL;
    Py_ssize_t i = at ? PyLong_AsSsize_t(at) : -1;
    PyObject *part = NULL;
    if (kinds && PyTuple_CheckExact(kinds) && i >= 0 && i < PyTuple_GET_SIZE(kinds)
        && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kinds, i), "const") == 0)
        part = PyTuple_Pack(2, (PyObject *)Py_TYPE(v), v);
    Py_XDECREF(index);
    Py_XDECREF(kinds);
    return part;
}

/* The key of a call with `a` (positional handles) and keywords `kwnames` (their values at
   `kw`), or NULL: not a call the compiled path keys. */
static PyObject *call_key(PyObject *plans, PyObject *a, PyObject *kwnames, PyObject *const *kw) {
    Py_ssize_t n = PyTuple_GET_SIZE(a), nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *handles = PyObject_GetAttr(plans, s_handles);
    Py_ssize_t most = handles ? PyLong_AsSsize_t(handles) : -1;
    Py_XDECREF(handles);
    if (most < n || n == 0) return NULL;
    PyObject *key = PyTuple_New(n + 2 * nk), *part;
    if (key == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        if ((part = handle_kid(PyTuple_GET_ITEM(a, k))) == NULL) goto fail;
        PyTuple_SET_ITEM(key, k, part);
    }
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        if ((part = keyword_part(plans, name, kw[k])) == NULL) goto fail;
        PyTuple_SET_ITEM(key, n + 2 * k, Py_NewRef(name));
        PyTuple_SET_ITEM(key, n + 2 * k + 1, part);
    }
    return key;
fail:
    Py_DECREF(key);
    return NULL;
}

/* The plan's compiled runner for this call (a new reference), or NULL: fall back. */
static PyObject *lookup(PyObject *kernel, PyObject *a, PyObject *kwnames, PyObject *const *kw) {
    PyObject *plans = PyObject_GetAttr(kernel, s_plans), *key = NULL, *run = NULL, *dict = NULL;
    if (plans == NULL || (key = call_key(plans, a, kwnames, kw)) == NULL) goto out;
    dict = PyObject_GetAttr(plans, s_dict);
    if (dict == NULL || !PyDict_CheckExact(dict)) goto out;
    PyObject *plan = PyDict_GetItemWithError(dict, key);  /* borrowed; an unhashable Const: */
    if (plan == NULL) goto out;                            /* TypeError, the full path's */
    PyObject *prefix = PyObject_GetAttr(plan, s_prefix);
    Py_ssize_t p = prefix ? PyLong_AsSsize_t(prefix) : -1;
    Py_XDECREF(prefix);
    if (p == PyTuple_GET_SIZE(a)) {
        run = PyObject_GetAttr(plan, s_run);
        if (run != NULL && Py_TYPE(run) != &RunnerType) Py_CLEAR(run);
    }
out:
    PyErr_Clear();
    Py_XDECREF(plans); Py_XDECREF(dict); Py_XDECREF(key);
    return run;
}

static PyObject *linker_call(Linker *l, PyObject *args, PyObject *kw) {
    PyObject *fn, *site, *a, *kernel = NULL;
    int unchecked = 0;
    if (!PyArg_ParseTuple(args, "OOO", &fn, &site, &a)) return NULL;
    if (!enabled) return PyObject_Call(l->fallback, args, NULL);
    if (!l->unchecked) kernel = fn;
    else if ((kernel = link_kernel(fn, &unchecked)) != NULL && !unchecked) kernel = NULL;
    if (kernel != NULL && PyTuple_CheckExact(a)) {
        PyObject *run = lookup(kernel, a, NULL, NULL);
        if (run != NULL) {
            PyObject *op = run_here((Runner *)run, kernel, a, site, l->unchecked);
            Py_DECREF(run);
            if (op != NULL || PyErr_Occurred()) return op;
        }
    }
    return PyObject_Call(l->fallback, args, NULL);
}

/* Kernel.__call__ (launch.py's `launch`) from user code without keywords: the call's site
   from the caller's frame, then the plan's compiled runner, or launch_linked (which finds or
   records the plan). Anything else: the Python function, `Kernel._call_py`. */
static PyObject *kernel_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    if (!enabled || Py_TYPE(self) != kernel_t || linked == NULL)
        return python_twin(self, s_call_py, args, nargs, kwnames);
    PyObject *site = user_site(site_t), *op = NULL;
    if (site == NULL)
        return PyErr_Occurred() ? NULL : python_twin(self, s_call_py, args, nargs, kwnames);
    PyObject *a = tuple_of(args, nargs);
    if (a == NULL) { Py_DECREF(site); return NULL; }
    PyObject *run = lookup(self, a, kwnames, args + nargs);
    if (run != NULL) {
        op = run_here((Runner *)run, self, a, site, 0);
        Py_DECREF(run);
    }
    if (op == NULL && !PyErr_Occurred())  /* keywords: the Python launch finds the plan */
        op = kwnames ? python_twin(self, s_call_py, args, nargs, kwnames)
                     : PyObject_CallFunctionObjArgs(linked, self, site, a, NULL);
    Py_DECREF(site);
    Py_DECREF(a);
    return op;
}

static PyMethodDef call_def = {
    "__call__", (PyCFunction)(void (*)(void))kernel_call, METH_FASTCALL | METH_KEYWORDS,
    "__call__($self, /, *args, **kwargs)\n--\n\nA lazy launch of the kernel on `args`."};

/* call_method(): Kernel.__call__ in C, a method descriptor of the class `then_method` got. */
static PyObject *call_method(PyObject *self, PyObject *unused) {
    if (kernel_t == NULL) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    return PyDescr_NewMethod(kernel_t, &call_def);
}

static PyObject *linker_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *fallback;  /* before `configure`, every call falls back (no class matches) */
    int unchecked = 0;
    if (!PyArg_ParseTuple(args, "O|p", &fallback, &unchecked)) return NULL;
    Linker *l = (Linker *)type->tp_alloc(type, 0);
    if (l != NULL) {
        l->fallback = Py_NewRef(fallback);
        l->unchecked = unchecked;
    }
    return (PyObject *)l;
}

static int linker_traverse(Linker *l, visitproc visit, void *arg) {
    Py_VISIT(l->fallback);
    return 0;
}

static int linker_clear(Linker *l) {
    Py_CLEAR(l->fallback);
    return 0;
}

static void linker_dealloc(Linker *l) {
    PyObject_GC_UnTrack(l);
    linker_clear(l);
    Py_TYPE(l)->tp_free((PyObject *)l);
}

static PyTypeObject LinkerType = CALLABLE_TYPE(Linker, linker,
    "launch.py's _launch for the usual call (its fallback for the rest).");

static PyTypeObject RunnerType = CALLABLE_TYPE(Runner, runner,
    "A launch plan's compiled launcher (fastpath.py's run).");

/* ---- Launcher ---------------------------------------------------------------------------- */

enum { F_PTR, F_SHAPE, F_STRIDE, F_STATUS, F_INT, F_UINT, F_F32, F_F64, F_BOOL };

typedef struct { Py_ssize_t arg, axis, at; int field, size; } Dyn;

typedef struct {
    PyObject_HEAD
    launch_fn fn;
    void *function;
    char *image;  /* the block with its static slots written */
    Py_ssize_t size, n_slots, n_dyn, n_tensors;
    Py_ssize_t *offsets;  /* per slot */
    Dyn *dyn;
    Py_ssize_t *tensors;  /* parameters whose buffers learn the stream */
    PyObject *fallback, *enter, *fail, *threads;
    unsigned long last_thread;
} Launcher;

static int launcher_traverse(Launcher *l, visitproc visit, void *arg) {
    Py_VISIT(l->fallback); Py_VISIT(l->enter); Py_VISIT(l->fail); Py_VISIT(l->threads);
    return 0;
}

static int launcher_clear(Launcher *l) {
    Py_CLEAR(l->fallback); Py_CLEAR(l->enter); Py_CLEAR(l->fail); Py_CLEAR(l->threads);
    return 0;
}

static void launcher_dealloc(Launcher *l) {
    PyObject_GC_UnTrack(l);
    launcher_clear(l);
    PyMem_Free(l->image); PyMem_Free(l->offsets); PyMem_Free(l->dyn); PyMem_Free(l->tensors);
    Py_TYPE(l)->tp_free((PyObject *)l);
}

/* Launcher(fn, function, image, offsets, dynamic, tensors, fallback, enter, fail): `dynamic`
   rows (arg, field, axis, offset, size), `field` one of the F_ codes above. */
static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    unsigned long long fn, function;
    PyObject *image, *offsets, *dynamic, *tensors, *fallback, *enter, *fail;
    if (!PyArg_ParseTuple(args, "KKO!O!O!O!OOO", &fn, &function, &PyBytes_Type, &image,
                          &PyTuple_Type, &offsets, &PyTuple_Type, &dynamic, &PyTuple_Type,
                          &tensors, &fallback, &enter, &fail))
        return NULL;
    Py_ssize_t size = PyBytes_GET_SIZE(image), ns = PyTuple_GET_SIZE(offsets);
    if (size > MAX_BLOCK || ns > MAX_SLOTS) {
        PyErr_SetString(PyExc_ValueError, "parameter block too large");
        return NULL;
    }
    Launcher *l = (Launcher *)type->tp_alloc(type, 0);
    if (l == NULL) return NULL;
    l->fn = (launch_fn)(uintptr_t)fn;
    l->function = (void *)(uintptr_t)function;
    l->fallback = Py_NewRef(fallback); l->enter = Py_NewRef(enter); l->fail = Py_NewRef(fail);
    l->threads = PySet_New(NULL);
    l->size = size;
    l->image = PyMem_Malloc(size ? size : 1);
    l->offsets = PyMem_Calloc(ns + 1, sizeof(Py_ssize_t));
    long long *rows = NULL;
    if (l->threads == NULL || l->image == NULL || l->offsets == NULL) goto fail;
    memcpy(l->image, PyBytes_AS_STRING(image), size);
    l->n_slots = ns;
    for (Py_ssize_t k = 0; k < ns; k++) {
        l->offsets[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, k));
        if (l->offsets[k] < 0 || l->offsets[k] >= size) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad slot offset");
            goto fail;
        }
    }
    if ((rows = int_rows(dynamic, 5, &l->n_dyn)) == NULL) goto fail;
    l->dyn = PyMem_Calloc(l->n_dyn + 1, sizeof(Dyn));
    if (l->dyn == NULL) goto fail;
    for (Py_ssize_t k = 0; k < l->n_dyn; k++) {
        long long *w = &rows[5 * k];
        l->dyn[k] = (Dyn){(Py_ssize_t)w[0], (Py_ssize_t)w[2], (Py_ssize_t)w[3], (int)w[1],
                          (int)w[4]};
        if (w[0] < 0 || w[3] < 0 || w[3] + w[4] > size) {
            PyErr_SetString(PyExc_ValueError, "bad slot row");
            goto fail;
        }
    }
    Py_ssize_t nt = PyTuple_GET_SIZE(tensors);
    l->tensors = PyMem_Calloc(nt + 1, sizeof(Py_ssize_t));
    if (l->tensors == NULL) goto fail;
    for (Py_ssize_t k = 0; k < nt; k++) {
        l->tensors[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(tensors, k));
        if (l->tensors[k] < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad parameter index");
            goto fail;
        }
    }
    l->n_tensors = nt;
    PyMem_Free(rows);
    return (PyObject *)l;
fail:
    PyMem_Free(rows);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    Py_DECREF(l);
    return NULL;
}

/* The tensor of a launch value: a partition's, or the value when it is a tensor; NULL for
   anything else (the fallback handles it). Borrowed. */
static PyObject *tensor_of(PyObject *v) {
    if (Py_TYPE(v) == partition_t) return SLOT(v, off[P_TENSOR]);
    return Py_TYPE(v) == tensor_t ? v : NULL;
}

static int tuple_item(PyObject *t, Py_ssize_t i, long long *out) {
    if (t == NULL || !PyTuple_Check(t) || i >= PyTuple_GET_SIZE(t)) return -1;
    return as_ll(PyTuple_GET_ITEM(t, i), out);
}

/* Writes one slot; 0 on success, -1: the fallback encodes this launch. */
static int write_slot(char *block, const Dyn *d, PyObject *v) {
    long long x = 0;
    char *at = block + d->at;
    switch (d->field) {
    case F_PTR: {
        PyObject *b = Py_TYPE(v) == partition_t ? SLOT(v, off[P_BASE])
            : Py_TYPE(v) == tensor_t ? SLOT(v, off[T_BASE]) : NULL;
        if (b == NULL || as_ll(b, &x) != 0) return -1;
        break;
    }
    case F_SHAPE: case F_STRIDE: {
        PyObject *t = tensor_of(v);
        if (t == NULL) return -1;
        if (tuple_item(SLOT(t, off[d->field == F_SHAPE ? T_SHAPE : T_STRIDES]), d->axis, &x))
            return -1;
        break;
    }
    case F_STATUS: case F_INT: case F_UINT:
        if (!PyLong_CheckExact(v)) return -1;
        if (as_ll(v, &x) != 0) {
            unsigned long long u;
            PyErr_Clear();
            if (d->field == F_INT) return -1;
            u = PyLong_AsUnsignedLongLong(v);
            if (PyErr_Occurred()) return -1;
            memcpy(at, &u, 8);  /* only u64 reaches past int64 (the contract checked ranges) */
            return d->size == 8 ? 0 : -1;
        }
        break;
    case F_F32: case F_F64: {
        double y;
        if (PyFloat_CheckExact(v)) y = PyFloat_AS_DOUBLE(v);
        else if (PyLong_CheckExact(v) && as_ll(v, &x) == 0 && x >= -(1LL << 53)
                 && x <= (1LL << 53)) y = (double)x;  /* exact in a float64, as pack.py */
        else return -1;
        if (d->field == F_F32) { float f = (float)y; memcpy(at, &f, 4); }
        else memcpy(at, &y, 8);
        return 0;
    }
    case F_BOOL:
        if (v != Py_True && v != Py_False) return -1;
        *at = v == Py_True;
        return 0;
    default:
        return -1;
    }
    switch (d->size) {  /* little-endian host, as pack.py's "<" format */
    case 8: memcpy(at, &x, 8); break;
    case 4: { int32_t y = (int32_t)x; memcpy(at, &y, 4); break; }
    case 2: { int16_t y = (int16_t)x; memcpy(at, &y, 2); break; }
    case 1: { int8_t y = (int8_t)x; memcpy(at, &y, 1); break; }
    default: return -1;
    }
    return 0;
}

/* Each tensor argument's buffer learns the stream (the allocator reuses a block only after
   every stream that used it): 0, -1 on an error, 1 for the fallback. */
static int learn_streams(Launcher *l, PyObject *const *a, Py_ssize_t n, PyObject *stream) {
    for (Py_ssize_t k = 0; k < l->n_tensors; k++) {
        PyObject *t = l->tensors[k] < n ? tensor_of(a[l->tensors[k]]) : NULL;
        PyObject *b = t ? SLOT(t, off[T_BUF]) : NULL;
        if (b == NULL) return 1;  /* not a tensor or a partition: the fallback */
        if (b == Py_None) continue;
        PyObject *streams = PyObject_GetAttr(b, s_streams);
        if (streams == NULL) return -1;
        int has = PySet_Check(streams) ? PySet_Contains(streams, stream) : -1;
        if (has == 0) has = PySet_Add(streams, stream);
        Py_DECREF(streams);
        if (has < 0) return -1;
    }
    return 0;
}

#define INVALID_CONTEXT 201  /* CUDA_ERROR_INVALID_CONTEXT */

static int launch(Launcher *l, const long long *g, long long s, void **params) {
    launch_fn fn = l->fn;  /* read with the GIL held */
    void *function = l->function;
    int err;
    Py_BEGIN_ALLOW_THREADS
    err = fn(function, (unsigned)g[0], (unsigned)g[1], (unsigned)g[2], 1, 1, 1, 0,
             (void *)(uintptr_t)s, params, NULL);
    Py_END_ALLOW_THREADS
    return err;
}

/* enqueue(args, grid, stream) -> None, as CudaExecutable.enqueue. */
#define FALLBACK() PyObject_CallFunctionObjArgs(l->fallback, a, grid, stream, NULL)

static PyObject *enqueue(Launcher *l, PyObject *a, PyObject *grid, PyObject *stream) {
    if (!enabled || (!PyList_CheckExact(a) && !PyTuple_CheckExact(a))) return FALLBACK();
    PyObject *const *items = PyList_CheckExact(a) ? ((PyListObject *)a)->ob_item
                                                  : ((PyTupleObject *)a)->ob_item;
    Py_ssize_t n = Py_SIZE(a);
    unsigned long thread = PyThread_get_thread_ident();
    if (thread != l->last_thread) {  /* a thread's first launch: the context current there */
        PyObject *id = PyLong_FromUnsignedLong(thread);
        int known = id ? PySet_Contains(l->threads, id) : -1;
        if (known == 0) {
            PyObject *res = PyObject_CallNoArgs(l->enter);
            known = res ? PySet_Add(l->threads, id) : -1;
            Py_XDECREF(res);
        }
        Py_XDECREF(id);
        if (known < 0) return NULL;
        l->last_thread = thread;
    }
    long long g[3], s;
    for (int k = 0; k < 3; k++)
        if (tuple_item(grid, k, &g[k]) != 0 || g[k] < 1 || g[k] > 0x7fffffff) {
            PyErr_Clear();
            return FALLBACK();
        }
    if (!PyLong_Check(stream) || as_ll(stream, &s) != 0) {
        PyErr_Clear();
        return FALLBACK();
    }
    _Alignas(16) char block[MAX_BLOCK];
    void *params[MAX_SLOTS];
    memcpy(block, l->image, l->size);
    for (Py_ssize_t k = 0; k < l->n_dyn; k++) {
        const Dyn *d = &l->dyn[k];
        if (d->arg >= n || write_slot(block, d, items[d->arg]) != 0) {
            PyErr_Clear();
            return FALLBACK();
        }
    }
    int learnt = learn_streams(l, items, n, stream);
    if (learnt < 0) return NULL;
    if (learnt > 0) return FALLBACK();
    for (Py_ssize_t k = 0; k < l->n_slots; k++) params[k] = block + l->offsets[k];
    int err = launch(l, g, s, params);
    if (err == INVALID_CONTEXT) {  /* a new thread under a dead one's ident: make it current */
        PyObject *res = PyObject_CallNoArgs(l->enter);
        if (res == NULL) return NULL;
        Py_DECREF(res);
        err = launch(l, g, s, params);
    }
    if (err) return PyObject_CallFunction(l->fail, "i", err);  /* raises CT505 */
    Py_RETURN_NONE;
}

static PyObject *launcher_call(Launcher *l, PyObject *args, PyObject *kw) {
    PyObject *a, *grid, *stream;
    if (!PyArg_ParseTuple(args, "OO!O", &a, &PyTuple_Type, &grid, &stream)) return NULL;
    return enqueue(l, a, grid, stream);
}

static PyTypeObject LauncherType;

/* ---- ChainOp._run_start's step ----------------------------------------------------------- */

static PyObject *s_pdl, *s_enqueue, *s_fail, *s_complete;

/* ChainOp._complete / LaunchOp._complete of `op`, the compiled one where it is a launch. */
static int complete_op(PyObject *op) {
    PyObject *res;
    if (Py_TYPE(op) == op_t) {
        res = complete(op, NULL);
    } else if (Py_TYPE(op) == chain_t) {
        PyObject *next = SLOT(op, chain_off[C_NEXT]);
        if (next != NULL && next != Py_None && complete_op(next) < 0) return -1;
        set_slot(op, off[L_PHASE], done);
        return 0;
    } else {
        res = PyObject_CallMethodNoArgs(op, s_complete);
    }
    Py_XDECREF(res);
    return res == NULL ? -1 : 0;
}

/* The compiled enqueue of a plan's executable `exe` (a new reference: held while Python code
   may run, which could replace the plan's executable), or NULL: none yet, a pdl kernel (started
   by pdl.py), or the Python enqueue. */
static Launcher *compiled_enqueue(PyObject *exe) {
    PyObject *pdl = NULL, *enq = NULL;
    if (exe != Py_None) {
        pdl = PyObject_GetAttr(exe, s_pdl);
        enq = pdl == Py_None ? PyObject_GetAttr(exe, s_enqueue) : NULL;
    }
    Py_XDECREF(pdl);
    PyErr_Clear();
    if (enq != NULL && Py_TYPE(enq) != &LauncherType) Py_CLEAR(enq);
    return (Launcher *)enq;
}

/* step(link, first, done, results): one link of ChainOp._run_start's loop (ops.py) where the
   link calls a kernel whose plan has a compiled runner and a compiled enqueue, and the work
   that completes now (`done`) is a launch with no status event: `first` completed, the next
   launch made and enqueued, `link._next` and `link._results` set; returns the results. None:
   the loop's own body takes this link (it may find `first` completed already, which is
   idempotent). An error raised while enqueueing fails the new launch first, as the loop does. */
static PyObject *step(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (!enabled || nargs != 4 || kernel_t == NULL) Py_RETURN_NONE;
    PyObject *link = args[0], *first = args[1], *done_op = args[2], *results = args[3];
    PyObject *fn = SLOT(link, chain_off[C_FN]), *site = SLOT(link, off[L_SITE]);
    int unchecked = 0;
    if (Py_TYPE(done_op) != op_t || SLOT(done_op, off[L_DONE]) != Py_None || fn == NULL
        || !PyTuple_CheckExact(results) || site == NULL
        || (fn = link_kernel(fn, &unchecked)) == NULL)
        Py_RETURN_NONE;
    PyObject *run = lookup(fn, results, NULL, NULL);
    if (run == NULL) Py_RETURN_NONE;
    Target t;
    if (target_of(((Runner *)run)->plan, &t) < 0) { Py_DECREF(run); return NULL; }
    Launcher *l = compiled_enqueue(t.exe);
    PyObject *op = NULL, *out = NULL;
    if (l == NULL) { Py_DECREF(run); target_clear(&t); Py_RETURN_NONE; }
    if (complete_op(first) < 0) goto end;
    op = unchecked ? run_unchecked((Runner *)run, fn, results, site, &t)
                   : run_plan((Runner *)run, fn, results, site, &t);
    if (op == NULL) {
        if (!PyErr_Occurred()) out = Py_NewRef(Py_None);  /* a check failed: the loop's body */
        goto end;
    }
    set_slot(link, chain_off[C_NEXT], op);
    set_slot(op, off[L_PHASE], started);
    PyObject *event = enqueue(l, SLOT(op, off[L_ARGS]), SLOT(op, off[L_GRID]),
                              SLOT(op, off[L_STREAM]));
    if (event == NULL) {  /* nxt._fail(err), then the error goes on to the loop's handler */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) PyException_SetTraceback(value, tb);
        PyObject *res = PyObject_CallMethodOneArg(op, s_fail, value);
        if (res == NULL) { Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb); goto end; }
        Py_DECREF(res);
        PyErr_Restore(type, value, tb);
        goto end;
    }
    set_slot(op, off[L_DONE], event);
    Py_DECREF(event);
    out = Py_NewRef(SLOT(op, off[L_RESULTS]));
    set_slot(link, chain_off[C_RESULTS], out);
end:
    Py_DECREF(run);
    Py_DECREF(l);
    target_clear(&t);
    Py_XDECREF(op);
    return out;
}

static PyTypeObject LauncherType = CALLABLE_TYPE(Launcher, launcher,
    "An executable's compiled enqueue (pack.py's runner).");

/* A launch function that does nothing (the null driver's, for timing without a GPU). */
static int null_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shmem, void *stream, void **params, void **extra) {
    return 0;
}

static PyObject *null_launch_address(PyObject *self, PyObject *unused) {
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)&null_launch);
}

static PyObject *set_enabled(PyObject *self, PyObject *flag) {
    int on = PyObject_IsTrue(flag);
    if (on < 0) return NULL;
    PyObject *was = PyBool_FromLong(enabled);
    enabled = on;
    return was;
}

/* ---- handle moves: Tensor.reshape, Tensor.partition, Partition.unpartition ------------- */

/* The usual call of each (a live handle of the exact class, no lease, no view, no DLPack
   import, a layout the Python method accepted before, called from user code) in C; anything
   else goes to the Python method (`_reshape_py`, `_unpartition_py`; Tensor.partition's own
   body), which checks and raises as before. */

static PyObject *reshapes, *valid;  /* tensor.py's _reshapes and partition.py's _valid dicts */
static PyObject *tile_order_t, *zero, *empty_str, *how_reshape, *how_partition,
    *how_unpartition, *s_owner, *s_tile_grid, *s_reshape_py, *s_unpartition_py;

/* Whether `h` (an ownership record) may be moved without a word: live, unleased, no view. */
static int movable(PyObject *h, Py_ssize_t region) {
    return SLOT(h, off[O_STATE]) == live && SLOT(h, off[O_LEASES]) == Py_None
        && SLOT(h, region) == Py_None;
}

static void set_owned(PyObject *h, PyObject *state, PyObject *how, PyObject *site) {
    SLOT(h, off[O_STATE]) = Py_NewRef(state);
    SLOT(h, off[O_HOW]) = Py_NewRef(how);
    SLOT(h, off[O_SITE]) = Py_NewRef(site);
    SLOT(h, off[O_OP]) = Py_NewRef(Py_None);
    SLOT(h, off[O_LEASES]) = Py_NewRef(Py_None);
}

/* A live Tensor on `t`'s memory with this shape, strides and descriptor id (_derive). */
static PyObject *derived(PyObject *t, PyObject *shape, PyObject *strides, PyObject *kid) {
    PyObject *n = tensor_t->tp_alloc(tensor_t, 0);
    if (n == NULL) return NULL;
    static const int same[] = {T_BACKEND, T_BUF, T_OFFSET, T_DTYPE, T_BASE, T_REGION};
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
        SLOT(n, off[same[k]]) = Py_XNewRef(SLOT(t, off[same[k]]));
    SLOT(n, off[T_SHAPE]) = Py_NewRef(shape);
    SLOT(n, off[T_STRIDES]) = Py_NewRef(strides);
    SLOT(n, off[T_KID]) = Py_NewRef(kid);
    set_owned(n, live, empty_str, Py_None);
    return n;
}

static int exact_ints(PyObject *v) {
    if (PyLong_CheckExact(v)) return 1;
    if (!PyTuple_CheckExact(v)) return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(v); k++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(v, k))) return 0;
    return 1;
}

/* A tensor's memory imported through DLPack (its buffer has an owner), or -1 with an error. */
static int imported(PyObject *t) {
    PyObject *buf = SLOT(t, off[T_BUF]);
    if (buf == NULL || buf == Py_None) return 0;
    PyObject *owner = PyObject_GetAttr(buf, s_owner);
    if (owner == NULL) return -1;
    int yes = owner != Py_None;
    Py_DECREF(owner);
    return yes;
}

/* (layout dict)[key] (borrowed), NULL with no error when absent or unhashable. */
static PyObject *remembered(PyObject *memo, PyObject *key) {
    PyObject *v = key ? PyDict_GetItemWithError(memo, key) : NULL;
    if (v == NULL) PyErr_Clear();
    return v;
}

static PyObject *reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    if (!enabled || kwnames != NULL || nargs < 1 || Py_TYPE(self) != tensor_t
        || !movable(self, off[T_REGION]))
        return python_twin(self, s_reshape_py, args, nargs, kwnames);
    PyObject *request = nargs == 1 ? Py_NewRef(args[0]) : tuple_of(args, nargs);
    PyObject *key = request && exact_ints(request)
        ? PyTuple_Pack(3, SLOT(self, off[T_SHAPE]), SLOT(self, off[T_STRIDES]), request) : NULL;
    PyObject *layout = Py_XNewRef(remembered(reshapes, key)), *site = NULL, *n = NULL;
    Py_XDECREF(request);
    Py_XDECREF(key);
    /* held: making the site runs Python, which could clear the memo */
    if (layout == NULL || !PyTuple_CheckExact(layout) || PyTuple_GET_SIZE(layout) != 2
        || (site = user_site(site_t)) == NULL) {
        Py_XDECREF(layout);
        return PyErr_Occurred() ? NULL : python_twin(self, s_reshape_py, args, nargs, kwnames);
    }
    n = derived(self, PyTuple_GET_ITEM(layout, 0), PyTuple_GET_ITEM(layout, 1), zero);
    if (n != NULL) move(self, how_reshape, site, Py_None);
    Py_DECREF(site);
    Py_DECREF(layout);
    return n;
}

/* The site of the call that called the running Python frame (the method that called us),
   with that call's own caller's where that is user code too (sites.caller_with_parent), or
   NULL (no error) where the Python method must find it. */
static PyObject *user_site_with_parent(void) {
    PyFrameObject *here = PyEval_GetFrame();  /* borrowed: the calling Python method */
    PyFrameObject *frame = here ? PyFrame_GetBack(here) : NULL, *back = NULL;
    if (frame == NULL) return NULL;
    PyCodeObject *code = PyFrame_GetCode(frame), *up = NULL;
    PyObject *site = NULL;
    if (PyDict_GetItemWithError(internal_files, code->co_filename) != Py_False) goto out;
    back = PyFrame_GetBack(frame);
    PyObject *inside = Py_True;
    if (back != NULL) {
        up = PyFrame_GetCode(back);
        inside = PyDict_GetItemWithError(internal_files, up->co_filename);
        if (inside == NULL) goto out;  /* not seen yet: sites.is_internal decides */
    }
    site = site_from(site_t, inside == Py_True
        ? Py_BuildValue("(Oi)", (PyObject *)code, PyFrame_GetLasti(frame))
        : Py_BuildValue("(OiOi)", (PyObject *)code, PyFrame_GetLasti(frame), (PyObject *)up,
                        PyFrame_GetLasti(back)));
out:
    Py_DECREF(frame);
    Py_DECREF(code);
    Py_XDECREF(back);
    Py_XDECREF(up);
    return site;
}

/* partition(t, tile_shape, order, blocks), called by Tensor.partition first: the partition,
   or None where that method's Python body must decide. */
static PyObject *partition(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "partition takes 4 arguments");
        return NULL;
    }
    PyObject *t = args[0], *tile = args[1], *order = args[2], *blocks = args[3];
    if (!enabled || Py_TYPE(t) != tensor_t || !movable(t, off[T_REGION])
        || !PyTuple_CheckExact(tile) || !exact_ints(tile)
        || Py_TYPE(order) != (PyTypeObject *)tile_order_t
        || (blocks != Py_None && !PyLong_CheckExact(blocks)))
        Py_RETURN_NONE;
    int dlpack = imported(t);
    if (dlpack < 0) return NULL;
    PyObject *key = PyTuple_Pack(5, SLOT(t, off[T_SHAPE]), SLOT(t, off[T_STRIDES]), tile, order,
                                 blocks);
    /* held: making the site and reading the grid run Python, which could clear the memo */
    PyObject *tiling = dlpack ? NULL : Py_XNewRef(remembered(valid, key)), *site = NULL,
        *grid = NULL;
    Py_XDECREF(key);
    if (tiling == NULL || (site = user_site_with_parent()) == NULL) {
        Py_XDECREF(tiling);
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    PyObject *inner = NULL, *p = NULL;
    if ((grid = PyObject_GetAttr(tiling, s_tile_grid)) == NULL) goto out;
    if ((inner = derived(t, SLOT(t, off[T_SHAPE]), SLOT(t, off[T_STRIDES]),
                         SLOT(t, off[T_KID]))) == NULL) goto out;
    if ((p = partition_t->tp_alloc(partition_t, 0)) == NULL) goto out;
    SLOT(p, off[P_TENSOR]) = Py_NewRef(inner);
    SLOT(p, off[P_TILE]) = Py_NewRef(tile);
    SLOT(p, off[P_ORDER]) = Py_NewRef(order);
    SLOT(p, off[P_BLOCKS]) = Py_NewRef(blocks);
    SLOT(p, off[P_GRID]) = Py_NewRef(grid);
    SLOT(p, off[P_TILING]) = Py_NewRef(tiling);
    SLOT(p, off[P_BASE]) = Py_XNewRef(SLOT(inner, off[T_BASE]));
    SLOT(p, off[P_KID]) = Py_NewRef(zero);
    SLOT(p, off[P_REGION]) = Py_NewRef(Py_None);
    set_owned(p, live, empty_str, Py_None);
    move(t, how_partition, site, Py_None);
out:
    Py_DECREF(tiling);
    Py_XDECREF(grid);
    Py_XDECREF(inner);
    Py_DECREF(site);
    return p;
}

static PyObject *unpartition(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    PyObject *t = Py_TYPE(self) == partition_t ? SLOT(self, off[P_TENSOR]) : NULL, *site;
    if (!enabled || nargs != 0 || kwnames != NULL || t == NULL || Py_TYPE(t) != tensor_t
        || SLOT(self, off[O_STATE]) != live || (site = user_site(site_t)) == NULL)
        return PyErr_Occurred() ? NULL : python_twin(self, s_unpartition_py, args, nargs, kwnames);
    PyObject *n = derived(t, SLOT(t, off[T_SHAPE]), SLOT(t, off[T_STRIDES]), SLOT(t, off[T_KID]));
    if (n != NULL) move(self, how_unpartition, site, Py_None);
    Py_DECREF(site);
    return n;
}

static PyMethodDef reshape_def = {
    "reshape", (PyCFunction)(void (*)(void))reshape, METH_FASTCALL | METH_KEYWORDS,
    "reshape($self, shape, *dims)\n--\n\nMoves this tensor into a new handle of another "
    "shape (a view when contiguous): `t.reshape((3, 4))` or `t.reshape(3, 4)`."};
static PyMethodDef partition_def = {
    "partition", (PyCFunction)(void (*)(void))partition, METH_FASTCALL,
    "partition(t, tile_shape, order, blocks): the usual call of Tensor.partition, or None."};
static PyMethodDef unpartition_def = {
    "unpartition", (PyCFunction)(void (*)(void))unpartition, METH_FASTCALL | METH_KEYWORDS,
    "unpartition($self)\n--\n\nMoves the tensor back out of the partition."};

/* handle_methods(TileOrder, tensor.py's _reshapes dict, partition.py's _valid dict):
   (Tensor.reshape, Partition.unpartition) as method descriptors, and `partition`, the usual
   call of Tensor.partition, as a function (a method descriptor cannot show its default
   order to `inspect`). */
static PyObject *handle_methods(PyObject *self, PyObject *args) {
    PyObject *order_t, *shapes, *layouts;
    if (!configured) { PyErr_SetString(PyExc_RuntimeError, "not configured"); return NULL; }
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyType_Type, &order_t, &PyDict_Type, &shapes,
                          &PyDict_Type, &layouts))
        return NULL;
    Py_XSETREF(tile_order_t, Py_NewRef(order_t));
    Py_XSETREF(reshapes, Py_NewRef(shapes));
    Py_XSETREF(valid, Py_NewRef(layouts));
    PyObject *r = PyDescr_NewMethod(tensor_t, &reshape_def);
    PyObject *q = PyCFunction_New(&partition_def, NULL);
    PyObject *u = PyDescr_NewMethod(partition_t, &unpartition_def);
    PyObject *out = r && q && u ? PyTuple_Pack(3, r, q, u) : NULL;
    Py_XDECREF(r); Py_XDECREF(q); Py_XDECREF(u);
    return out;
}

static PyMethodDef methods[] = {
    {"set_enabled", set_enabled, METH_O,
     "Turns every compiled entry point on or off (off: each takes its Python twin); returns "
     "the previous setting."},
    {"configure", configure, METH_VARARGS, "Slot offsets, classes and constants, once."},
    {"complete_method", complete_method, METH_NOARGS,
     "LaunchOp._complete in C, as a method descriptor of the configured LaunchOp class."},
    {"finalize_method", finalize_method, METH_NOARGS,
     "finalize_method(): LaunchOp.__del__ in C (its Python twin: _del_py)."},
    {"call_method", call_method, METH_NOARGS,
     "Kernel.__call__ in C, as a method descriptor of Kernel."},
    {"then_method", then_method, METH_VARARGS,
     "DeviceOp.then in C, as a method descriptor of DeviceOp."},
    {"step", (PyCFunction)(void (*)(void))step, METH_FASTCALL,
     "One link of ChainOp._run_start in its usual case, or None."},
    {"handle_methods", handle_methods, METH_VARARGS,
     "Tensor.reshape and Partition.unpartition in C, and Tensor.partition's usual call."},
    {"null_launch_address", null_launch_address, METH_NOARGS,
     "The address of a launch function that does nothing and returns 0."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, .m_name = "_native", .m_size = -1,
                                    .m_methods = methods};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&RunnerType) < 0 || PyType_Ready(&LauncherType) < 0
        || PyType_Ready(&LinkerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    s_target = PyUnicode_InternFromString("_target");
    s_stream = PyUnicode_InternFromString("stream");
    s_handoff = PyUnicode_InternFromString("_handoff");
    s_lease = PyUnicode_InternFromString("_lease");
    s_exe = PyUnicode_InternFromString("exe");
    s_backend = PyUnicode_InternFromString("backend");
    s_executable = PyUnicode_InternFromString("executable");
    s_streams = PyUnicode_InternFromString("streams");
    s_plans = PyUnicode_InternFromString("_plans");
    s_release = PyUnicode_InternFromString("_release");
    s_complete_py = PyUnicode_InternFromString("_complete_py");
    s_del_py = PyUnicode_InternFromString("_del_py");
    s_then_py = PyUnicode_InternFromString("_then_py");
    s_call_py = PyUnicode_InternFromString("_call_py");
    s_pdl = PyUnicode_InternFromString("pdl");
    s_enqueue = PyUnicode_InternFromString("enqueue");
    s_fail = PyUnicode_InternFromString("_fail");
    s_complete = PyUnicode_InternFromString("_complete");
    s_dict = PyUnicode_InternFromString("plans");
    s_handles = PyUnicode_InternFromString("handles");
    s_run = PyUnicode_InternFromString("run");
    s_prefix = PyUnicode_InternFromString("prefix");
    s_index = PyUnicode_InternFromString("index");
    s_owner = PyUnicode_InternFromString("owner");
    s_tile_grid = PyUnicode_InternFromString("tile_grid");
    s_reshape_py = PyUnicode_InternFromString("_reshape_py");
    s_unpartition_py = PyUnicode_InternFromString("_unpartition_py");
    how_reshape = PyUnicode_InternFromString("by reshape()");
    how_partition = PyUnicode_InternFromString("by .partition()");
    how_unpartition = PyUnicode_InternFromString("by .unpartition()");
    empty_str = PyUnicode_InternFromString("");
    zero = PyLong_FromLong(0);
    s_kinds = PyUnicode_InternFromString("kinds");
    if (PyModule_AddIntConstant(m, "VERSION", VERSION) < 0
        || PyModule_AddObjectRef(m, "Runner", (PyObject *)&RunnerType) < 0
        || PyModule_AddObjectRef(m, "Launcher", (PyObject *)&LauncherType) < 0
        || PyModule_AddObjectRef(m, "Linker", (PyObject *)&LinkerType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
