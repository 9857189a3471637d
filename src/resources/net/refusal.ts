import { ToolgateError, type ErrorDataByCode } from '../../protocol/index.js';

export type DestinationRefusal = ErrorDataByCode['destination_refused'];

/** The one error every refusal of this layer is: `destination_refused` with what was refused and why. */
export function destinationRefused(data: DestinationRefusal, message: string, cause?: unknown): ToolgateError<'destination_refused'> {
  return new ToolgateError('destination_refused', message, data, cause === undefined ? undefined : { cause });
}
