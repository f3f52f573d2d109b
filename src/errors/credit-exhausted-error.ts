import { ServiceError, type ResponseHeaders } from './service-error.js';

/**
 * The spec does not give the status of "request costs more than the remaining credit"; we treat
 * 402, and any 4xx whose message asks for payment, as this.
 */
export class CreditExhaustedError extends ServiceError {
  constructor(status: number, serviceMessage: string | undefined, headers?: ResponseHeaders) {
    super(
      'E_CREDIT_EXHAUSTED',
      status,
      'credit exhausted: add payment information for a pay-as-you-go plan in the account settings' +
        (serviceMessage ? ` (service said: ${serviceMessage})` : ''),
      serviceMessage,
      headers,
    );
  }
}
