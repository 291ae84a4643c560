import { Global, Module } from '@nestjs/common';
import { Transactions } from './transactions';

/** Database services every module may inject (TypeORM's own module is set up by CoreModule). */
@Global()
@Module({
  providers: [Transactions],
  exports: [Transactions],
})
export class DatabaseModule {}
