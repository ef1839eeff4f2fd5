/**
 * `HandlerRegistry`: the one place a peer keeps its request and notification handlers by method.
 * @module
 */

/**
 * Request handlers and notification handlers by method name. `ContextServer` and `ContextClient`
 * each hold exactly one and drive their connection through its `onRequest`/`onNotification` hooks
 * from it; nothing else keeps a handler map beside it.
 */
export class HandlerRegistry<RequestHandler, NotificationHandler> {
  readonly #requests = new Map<string, RequestHandler>();
  readonly #notifications = new Map<string, NotificationHandler>();

  /** Sets the handler of request `method`, replacing an earlier one. */
  setRequest(method: string, handler: RequestHandler): void {
    this.#requests.set(method, handler);
  }

  /** Sets the handler of notification `method`, replacing an earlier one. */
  setNotification(method: string, handler: NotificationHandler): void {
    this.#notifications.set(method, handler);
  }

  /** The handler of request `method`, if one is set. */
  request(method: string): RequestHandler | undefined {
    return this.#requests.get(method);
  }

  /** The handler of notification `method`, if one is set. */
  notification(method: string): NotificationHandler | undefined {
    return this.#notifications.get(method);
  }

  /** The methods with a request handler, in registration order. */
  requestMethods(): string[] {
    return [...this.#requests.keys()];
  }
}
