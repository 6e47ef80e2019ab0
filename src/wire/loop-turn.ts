/**
 * A budget of the event loop's time for work a session does in a series of steps (encoding a chunk's rows):
 * once the current turn of the loop has run TURN_MS, the work waits for the next turn, so other sessions'
 * messages are read and answered in between. Without it a chunk of 400 shown jsonb values of 27 KB was put
 * into jsonb's normal form in one turn: every other session waited 3.2 s (attacker review, issue 23).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The most of one turn of the event loop a session's steps take before letting the loop turn. */
export const TURN_MS = 20;

export class LoopTurn {
  private started = 0;
  /** Whether the loop has turned since `started` (an immediate queued then has run). */
  private turned = true;

  /** When the current turn's budget ends (`performance.now()` time); starts a budget in a new turn. */
  until(): number {
    if (this.turned) {
      this.started = performance.now();
      this.turned = false;
      setImmediate(() => (this.turned = true));
    }
    return this.started + TURN_MS;
  }

  /** Waits for the loop's next turn when this turn's budget is spent. */
  async yieldIfSpent(): Promise<void> {
    if (!this.turned && performance.now() >= this.started + TURN_MS) await nextTurn();
  }
}
