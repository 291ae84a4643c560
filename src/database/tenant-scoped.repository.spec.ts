import { Repository } from 'typeorm';
import { TenantScope } from './tenant-owned.entity';
import { TenantScopedRepository } from './tenant-scoped.repository';

class Rows extends TenantScopedRepository<TenantScope> {
  constructor(repository: Repository<TenantScope>) {
    super(repository);
  }
  run(scope: TenantScope, statement: string, params: unknown[] = []): Promise<unknown> {
    return this.sql(scope, statement, params);
  }
}

describe('TenantScopedRepository.sql', () => {
  const query = jest.fn(async () => []);
  const rows = new Rows({ manager: { query } } as unknown as Repository<TenantScope>);
  const scope: TenantScope = { tenantId: 't-1', mode: 'live' };

  it('binds the scope as $1 and $2, before the caller parameters', async () => {
    await rows.run(scope, 'SELECT 1 FROM x WHERE tenant_id = $1 AND mode = $2 AND id = $3', ['id-1']);
    expect(query).toHaveBeenCalledWith('SELECT 1 FROM x WHERE tenant_id = $1 AND mode = $2 AND id = $3', ['t-1', 'live', 'id-1']);
  });

  it('refuses a statement that does not use both', () => {
    expect(() => rows.run(scope, 'SELECT 1 FROM x WHERE id = $3', ['id'])).toThrow('must use $1 (tenant_id) and $2 (mode)');
    expect(() => rows.run(scope, 'SELECT 1 FROM x WHERE tenant_id = $1 AND id = $12', [])).toThrow('must use $1');
  });
});
