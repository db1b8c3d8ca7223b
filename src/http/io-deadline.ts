/**
 * A time limit on waiting for I/O, judged only after the event loop has read what was waiting.
 *
 * A timer runs in the event loop's timers phase, before the poll phase reads the sockets. A thread that was busy past
 * the limit (a worker compiling a large validator for seconds, a main thread writing reports, a starved CI runner)
 * would otherwise give up on an answer or a delivery that arrived during the stall: the suite's slowness judged as
 * the target's. So a limit that falls due waits two more turns of the loop (setImmediate runs after the poll phase):
 * the first accepts a connection that came in meanwhile, the second reads what it carries (an answer on a connection
 * already open is read in the first). Then `expire` runs; `clear` cancels it at any stage.
 */
export interface IoDeadline {
  clear(): void;
}

export function setIoDeadline(expire: () => void, ms: number): IoDeadline {
  let immediate: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => (immediate = setImmediate(() => (immediate = setImmediate(expire)))), ms);
  return {
    clear() {
      clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
    },
  };
}
