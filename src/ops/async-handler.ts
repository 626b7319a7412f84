import type { NextFunction, Request, Response } from 'express';

/** Express 4 does not catch a rejected handler: this hands the error on to the error handler. */
export function asyncHandler(
  handler: (request: Request, response: Response, next: NextFunction) => Promise<void>,
): (request: Request, response: Response, next: NextFunction) => void {
  return (request, response, next) => {
    handler(request, response, next).catch(next);
  };
}
