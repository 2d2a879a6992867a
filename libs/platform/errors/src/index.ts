export { DomainError, notFound, type DomainErrorOptions, type ErrorCode } from './domain-error';
export { detailOf, type FieldFailure, InvalidField } from './field-failure';
