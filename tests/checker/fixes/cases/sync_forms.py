"""CT301 after a launch, in each form a launch takes, and what --fix makes of it (the .safe and
.unsafe files next to this one). Forms the fix does not understand are left alone."""

import cutile as ct
from cutile import Mut, Tensor, f32


@ct.kernel
def add(z: Mut[Tensor[f32, (128,)]], x: Tensor[f32, (-1,)]) -> None:
    z.store(ct.load_tile_like(x, z))


@ct.kernel
def fill(z: Mut[Tensor[f32, (128,)]]) -> None:
    z.store(ct.zeros((128,), f32))


X = ct.ones((1024,), f32)


def synced() -> None:  # safe: the statement waits already, its results are dropped
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    add(z, x).sync()
    print(z)  # E: CT301


def never_run() -> None:  # unsafe: .sync() runs the launch and waits for it
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    add(z, x)  # E: CT305
    print(z)  # E: CT301


def one_argument() -> None:  # one value back: a one-element tuple
    z = ct.zeros((1024,), f32).partition((128,))
    fill(z).sync()
    print(z)  # E: CT301


def keyword_argument() -> None:  # .sync() returns the positional arguments only
    z = ct.zeros((1024,), f32).partition((128,))
    add(z, x=ct.ones((1024,), f32)).sync()
    print(z)  # E: CT301


def named_then_synced() -> None:  # safe: bind at the op's own sync
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    op.sync()
    print(z)  # E: CT301


def named_synced_later() -> None:  # unsafe: the later sync moves up to the use
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)  # E: CT301
    op.sync()


def named_never_synced() -> None:  # unsafe: a wait before the use (a compound statement)
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)  # E: CT305
    if x is not None:
        print(z)  # E: CT301


def started() -> None:  # unsafe: started ops are waited for the same way
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x).start()
    print(z)  # E: CT301
    op.sync()


async def awaited() -> None:  # safe: `await` returns the arguments too
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    await add(z, x)
    print(z)  # E: CT301


async def awaited_later() -> None:  # unsafe: the later await moves up
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)  # E: CT301
    await op


def global_input() -> None:  # X is the module's: rebinding it here would make it local
    z = ct.zeros((1024,), f32).partition((128,))
    add(z, X).sync()
    print(z)  # E: CT301


def renamed() -> None:  # no fix: the results went to other names
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    z2, x2 = add(z, x).sync()
    print(z, z2, x2)  # E: CT301


def chained() -> None:  # no fix: the op goes on into .then(...)
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)  # E: CT301
    op.then(print).sync()


def commented_sync() -> None:  # no fix: moving the sync would move its comment away
    x = ct.ones((1024,), f32)
    z = ct.zeros((1024,), f32).partition((128,))
    op = add(z, x)
    print(z)  # E: CT301
    op.sync()  # the results are not needed here


x0 = ct.ones((1024,), f32)
z0 = ct.zeros((1024,), f32).partition((128,))
add(z0, x0).sync()
print(z0)  # E: CT301
