"""The slow path of ``async with lock(...)``: the request had to wait."""

import asyncio


async def await_grant(acquisition, future, timeout):
    """Awaits the grant and returns the acquisition (what ``as`` binds); if
    this is cancelled or times out, the wait is withdrawn (holding nothing,
    unblocking those behind it) before the exception propagates."""
    try:
        if timeout is None:
            await future
        else:
            async with asyncio.timeout(timeout):
                await future
    except BaseException:
        acquisition._abandon()
        raise
    return acquisition
