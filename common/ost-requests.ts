// Requests in flight by the OST they address, so that a cluster map marking
// the OST down can fail them at once instead of letting them wait out their
// timeout (a stopped or cut-off OSS never answers). The bulk client and the
// client's gRPC fallback both register here.
import { StripeError } from './errors.js';

interface InFlight {
  ostId: number;
  abort: (err: StripeError) => void;
}

export class OstRequests {
  private readonly inFlight = new Set<InFlight>();

  /** Registers a request to `ostId`; `abort` fails it. Returns the call that unregisters it once settled. */
  add(ostId: number, abort: (err: StripeError) => void): () => void {
    const request = { ostId, abort };
    this.inFlight.add(request);
    return () => this.inFlight.delete(request);
  }

  /** `work`, failed early if abortOst names `ostId` while it runs (the work itself runs on unheard). */
  race<T>(ostId: number, work: Promise<T>): Promise<T> {
    let done = (): void => undefined;
    const cut = new Promise<never>((_, reject) => {
      done = this.add(ostId, reject);
    });
    return Promise.race([work, cut]).finally(() => done());
  }

  /**
   * Fails every request to `ostId` in flight now with OST_DOWN;
   * returns how many. `where` names the server in the message.
   */
  abortOst(ostId: number, where: string, why: string): number {
    let aborted = 0;
    for (const request of [...this.inFlight]) {
      if (request.ostId !== ostId) continue;
      this.inFlight.delete(request);
      aborted++;
      request.abort(
        new StripeError('OST_DOWN', `request to OST ${ostId}${where} given up: ${why}`, { ostId }),
      );
    }
    return aborted;
  }
}
