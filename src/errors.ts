/**
 * Errors as values with a SQLSTATE from the start. Every layer throws `SqlError` (or a subclass);
 * only `wire/` turns them into ErrorResponse messages.
 */
export class SqlError extends Error {
  constructor(
    /** Five-character PostgreSQL SQLSTATE, e.g. `3D000`. */
    readonly sqlstate: string,
    message: string,
    readonly detail?: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SqlError';
  }
}

/** SQLSTATEs used across the gateway, named as in PostgreSQL's errcodes.txt. */
export const SQLSTATE = {
  syntaxError: '42601',
  undefinedTable: '42P01',
  undefinedColumn: '42703',
  undefinedFunction: '42883',
  insufficientPrivilege: '42501',
  invalidCatalogName: '3D000',
  featureNotSupported: '0A000',
  readOnlyTransaction: '25006',
  inFailedTransaction: '25P02',
  queryCanceled: '57014',
  adminShutdown: '57P01',
  crashShutdown: '57P02',
  cannotConnectNow: '57P03',
  protocolViolation: '08P01',
  invalidPassword: '28P01',
  invalidAuthorization: '28000',
  insufficientResources: '53000',
  tooManyConnections: '53300',
  diskFull: '53100',
  outOfMemory: '53200',
  configurationLimitExceeded: '53400',
  invalidBinaryRepresentation: '22P03',
  connectionRejected: '08004',
  dataCorrupted: 'XX001',
  internalError: 'XX000',
  ioError: '58030',
  invalidParameterValue: '22023',
  dataException: '22000',
  undefinedObject: '42704',
  invalidTransactionState: '25000',
  noActiveTransaction: '25P01',
  activeTransaction: '25001',
  invalidSqlStatementName: '26000',
  invalidCursorName: '34000',
  cantChangeRuntimeParam: '55P02',
  objectNotInPrerequisiteState: '55000',
  programLimitExceeded: '54000',
  statementTooComplex: '54001',
  tooManyColumns: '54011',
  ambiguousColumn: '42702',
  ambiguousFunction: '42725',
  syntaxErrorOrAccessRuleViolation: '42000',
  groupingError: '42803',
  invalidTextRepresentation: '22P02',
  numericValueOutOfRange: '22003',
  divisionByZero: '22012',
  invalidArgumentForPowerFunction: '2201F',
  invalidArgumentForWidthBucketFunction: '2201G',
  integrityConstraintViolation: '23000',
  invalidSchemaName: '3F000',
  indeterminateDatatype: '42P18',
  inconsistentDatatypes: '42P08',
  undefinedParameter: '42P02',
  duplicateCursor: '42P03',
  duplicatePreparedStatement: '42P05',
  connectionFailure: '08006',
  successfulCompletion: '00000',
  warning: '01000',
  dependentObjectsStillExist: '2BP01',
  nullValueNotAllowed: '22004',
  invalidSavepointSpecification: '3B001',
  idleInTransactionSessionTimeout: '25P03',
  characterNotInRepertoire: '22021',
  arraySubscriptError: '2202E',
  datetimeFieldOverflow: '22008',
  invalidDatetimeFormat: '22007',
  untranslatableCharacter: '22P05',
  substringError: '22011',
  cardinalityViolation: '21000',
  invalidArgumentForLogarithm: '2201E',
  invalidRegularExpression: '2201B',
  invalidArgumentForNtileFunction: '22014',
  invalidArgumentForNthValueFunction: '22016',
  invalidPrecedingOrFollowingSize: '22013',
  wrongObjectType: '42809',
  invalidColumnReference: '42P10',
  duplicateAlias: '42712',
} as const;

export function isSqlError(e: unknown): e is SqlError {
  return e instanceof SqlError;
}
