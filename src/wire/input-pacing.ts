/**
 * Reading a connection's input at the pace it is handled: the socket pauses while more than
 * INPUT_PAUSE_BYTES of complete messages wait (a client pipelining without reading its answers) and
 * reads again below INPUT_RESUME_BYTES; a large message still arriving holds its announced size of
 * the input budget all connections share.
 */
import type { Socket } from 'node:net';
import { SqlError, SQLSTATE } from '../errors.js';
import type { InputBudget } from './connection-context.js';
import type { FrontendDecoder } from './frontend.js';

/** Unprocessed input above which the socket is paused, and below which it reads again. */
const INPUT_PAUSE_BYTES = 1024 * 1024;
const INPUT_RESUME_BYTES = 512 * 1024;
/** An incomplete message larger than this holds its announced size of the shared input budget. */
const BUDGETED_FRAME_BYTES = 1024 * 1024;

export class InputPacing {
  private paused = false;
  /** Bytes of the shared input budget held for the incomplete head message. */
  private reserved = 0;

  constructor(private readonly budget: InputBudget) {}

  /**
   * After input arrived or a message was handled (only once logged in: before, PRE_AUTH_BYTES bounds
   * input). A frame still incomplete is always read on: its size was checked against the message
   * limit from its header.
   */
  pace(decoder: FrontendDecoder, socket: Socket): void {
    const pending = decoder.pending;
    const head = decoder.headFrameBytes(false); // after login every frame is typed
    const complete = head > 0 && pending >= head;
    this.reserve(!complete && head > BUDGETED_FRAME_BYTES ? head : 0);
    if (!this.paused && complete && pending > INPUT_PAUSE_BYTES) {
      this.paused = true;
      socket.pause();
    } else if (this.paused && (!complete || pending < INPUT_RESUME_BYTES)) {
      this.paused = false;
      socket.resume();
    }
  }

  /** The connection ends: what it held of the budget goes back. */
  release(): void {
    this.budget.give(this.reserved);
    this.reserved = 0;
  }

  /**
   * Hold `bytes` of the input budget (the announced size of a large message still arriving; 0 once
   * it is complete). Many connections each sending most of a large message must not together hold
   * more than the budget: past it, 53200 and the connection ends.
   */
  private reserve(bytes: number): void {
    if (bytes === this.reserved) return;
    const budget = this.budget;
    if (bytes > this.reserved && !budget.take(bytes - this.reserved)) {
      throw new SqlError(
        SQLSTATE.outOfMemory,
        `out of memory: a message of ${bytes} bytes would pass the budget for incomplete messages of all connections (maxPendingMessageBytes, ${budget.max} bytes)`,
      );
    }
    if (bytes < this.reserved) budget.give(this.reserved - bytes);
    this.reserved = bytes;
  }
}
