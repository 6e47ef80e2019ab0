/**
 * A parameter where PostgreSQL's meaning needs a constant (`to_char(ts, $1)`, `round(x, $1)`): the
 * rewrite cannot translate the call without the value, so it says which parameter, and the session
 * plans the statement again with the value at Bind (session/value-plans.ts). Unhandled, it is a
 * precise 0A000 saying what to write instead.
 */
import { SqlError, SQLSTATE } from '../errors.js';
import { OID } from './oids.js';
import type { Node } from './parse-nodes.js';

export interface NeededValue {
  readonly oid: number;
  /** SQL text of a constant the call accepts, to describe the statement at Parse. */
  readonly standIn: string;
}

export class ParamNeedsValue extends SqlError {
  constructor(
    /** By parameter number ($n): the type PostgreSQL gives it there (its OID), and a constant to plan with instead. */
    readonly params: ReadonlyMap<number, NeededValue>,
    what: string,
  ) {
    super(
      SQLSTATE.featureNotSupported,
      `${what} with a parameter ($${[...params.keys()].join(', $')}) is not supported by fdl-gateway here`,
      undefined,
      'Send the value inside the statement text (client-side binding), or bind it in the extended protocol, where the gateway plans the statement with its value.',
    );
    this.name = 'ParamNeedsValue';
  }
}

/** `$n` or `$n::type`: the parameter's number, else undefined. */
function paramNumber(n: Node | undefined): number | undefined {
  const p = (n?.ParamRef ?? n?.TypeCast?.arg?.ParamRef) as Node | undefined;
  return p && !p.indirection ? (p.number as number) : undefined;
}

/** Throws ParamNeedsValue when `n` is a parameter; PostgreSQL reads it as `oid` there (text by default). */
export function needsValue(n: Node | undefined, what: string, standIn: string, oid: number = OID.text): void {
  const no = paramNumber(n);
  if (no !== undefined) throw new ParamNeedsValue(new Map([[no, { oid, standIn }]]), what);
}
