import { createParamDecorator, ExecutionContext, InternalServerErrorException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from './auth.types';

/** The caller's AuthContext; only on @Authenticated routes. */
export const CurrentAuth = createParamDecorator((_: unknown, context: ExecutionContext): AuthContext => {
  const auth = context.switchToHttp().getRequest<FastifyRequest>().auth;
  if (!auth) throw new InternalServerErrorException('CurrentAuth used on a route without @Authenticated');
  return auth;
});
