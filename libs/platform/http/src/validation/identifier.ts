import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { identifierProblem } from '@guidepost/contracts-http';
import { DomainError } from '@guidepost/platform-errors';

/**
 * The id, or a 400 naming `field` when it is not one the API takes (empty, over `ID_MAX_LENGTH`
 * characters, or holding text no store can keep). Path parameters and id lists use this one check, so
 * an id accepted on one path is accepted on every other.
 */
export function checkedIdentifier(field: string, id: string): string {
  const problem = identifierProblem(id);
  if (problem !== undefined) throw new DomainError('invalid_request', `${field}: ${problem}`);
  return id;
}

/** An id in the path, checked and named by its parameter: `@Param('user_id', IdentifierParam)`. */
@Injectable()
export class IdentifierParam implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    return checkedIdentifier(metadata.data ?? 'id', value);
  }
}
