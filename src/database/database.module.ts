import { Global, Module } from '@nestjs/common';
import { BusinessClock } from '../common/time/business-clock';
import { ReadReplicas } from './read-replicas';
import { Transactions } from './transactions';

/** Database services every module may inject (TypeORM's own module is set up by CoreModule), and the business clock, which reads the test clocks. */
@Global()
@Module({
  providers: [Transactions, ReadReplicas, BusinessClock],
  exports: [Transactions, ReadReplicas, BusinessClock],
})
export class DatabaseModule {}
