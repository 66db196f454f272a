/* The driver's own cost per launch, with no Python around it: `launch_loop` calls
 * cuLaunchKernel (given as a function pointer, the symbol libcuda exports) `n` times with the
 * same arguments and returns the first error, or 0. benchmarks/driver_calls.py builds it with
 * the system C compiler and times it as `c_loop` (the floor any compiled launcher meets). */
typedef int (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shmem, void *stream, void **params,
                         void **extra);

int launch_loop(launch_fn launch, void *f, unsigned gx, void *stream, void **params, int n) {
    for (int i = 0; i < n; i++) {
        int err = launch(f, gx, 1, 1, 1, 1, 1, 0, stream, params, 0);
        if (err) return err;
    }
    return 0;
}
