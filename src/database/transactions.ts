import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

/**
 * The one way a service opens a transaction. `work` receives the transaction's entity manager and passes
 * it as the last argument (`tx`) of every repository call that must commit or roll back with it; a
 * module writes its row, an events-outbox row and a counter in one `run`. The transaction commits when
 * `work` resolves and rolls back when it throws (the error is rethrown as it was).
 */
@Injectable()
export class Transactions {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }
}
