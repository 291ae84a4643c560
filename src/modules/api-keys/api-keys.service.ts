import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { generateApiKey } from '../../common/auth/api-key-secret';
import { InsufficientRoleException, InsufficientScopeException } from '../../common/auth/auth.exceptions';
import { AuthContext, ROLE_RANK, Role, Scope } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { ResourceNotFoundProblem, ValidationFailedException } from '../../common/http/errors/problem';
import { clock } from '../../common/time/clock';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { LastOwnerKeyException } from './api-keys.exceptions';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyDto, ApiKeyListDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { ApiKeyEntity } from './entities/api-key.entity';

export interface NewKeySpec {
  name: string;
  description?: string | null;
  role: Role;
  scopes: Scope[] | null;
  expiresAt?: Date | null;
  createdByKeyId?: string | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly transactions: Transactions,
    private readonly replicas: ReadReplicas,
  ) {}

  async list(auth: AuthContext, page: PageRequest): Promise<ApiKeyListDto> {
    const result = await this.replicas.read((db) => this.keys.list(auth, page, db));
    return { keys: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  /** A new key never has more than its creator: same mode, role and scopes at most the caller's. */
  async create(auth: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const role = dto.role ?? auth.role;
    if (ROLE_RANK[role] > ROLE_RANK[auth.role]) {
      throw new InsufficientRoleException([role], `A ${auth.role} key cannot create a ${role} key`);
    }
    const scopes = dto.scopes === undefined ? auth.scopes : dto.scopes;
    if (auth.scopes !== null) {
      if (scopes === null) throw new InsufficientScopeException('*', 'A key restricted to scopes cannot create a key with every scope');
      const beyond = scopes.filter((s) => !auth.scopes!.includes(s));
      if (beyond.length)
        throw new InsufficientScopeException(beyond[0], `This key cannot grant scopes it does not hold: ${beyond.join(', ')}`);
    }
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : auth.expiresAt;
    if (expiresAt && expiresAt.getTime() <= clock.nowMs()) {
      throw new ValidationFailedException([{ field: 'expiresAt', message: 'must be in the future' }]);
    }
    if (expiresAt && auth.expiresAt && expiresAt > auth.expiresAt) {
      throw new ValidationFailedException([{ field: 'expiresAt', message: "must not be later than the calling key's own expiry" }]);
    }
    const spec: NewKeySpec = {
      name: dto.name,
      description: dto.description ?? null,
      role,
      scopes,
      expiresAt,
      createdByKeyId: auth.apiKeyId,
    };
    // In a transaction so that an Idempotency-Key retry after a crash answers this key, not a second one.
    return this.transactions.run(async (tx) => this.issue(auth, spec, tx));
  }

  /** Creates a key and answers it with its secret, which is never available again. */
  async issue(scope: TenantScope, spec: NewKeySpec, tx?: EntityManager): Promise<CreatedApiKeyDto> {
    const secret = generateApiKey(scope.mode);
    const row = await this.keys.insert(
      scope,
      {
        keyHash: secret.hash,
        name: spec.name,
        description: spec.description ?? null,
        role: spec.role,
        scopes: spec.scopes,
        prefix: secret.prefix,
        last4: secret.last4,
        expiresAt: spec.expiresAt ?? null,
        createdByKeyId: spec.createdByKeyId ?? null,
        lastUsedAt: null,
        revokedAt: null,
      },
      tx,
    );
    return { ...toDto(row), key: secret.key };
  }

  /** Revokes at once on every instance. Revoking an already revoked key is a no-op. */
  async revoke(auth: AuthContext, id: string): Promise<void> {
    const key = await this.keys.findById(auth, id);
    if (!key) throw new ResourceNotFoundProblem('The API key');
    if (ROLE_RANK[key.role] > ROLE_RANK[auth.role]) {
      throw new InsufficientRoleException([key.role], `A ${auth.role} key cannot revoke a ${key.role} key`);
    }
    if (key.revokedAt) return;
    await this.transactions.run(async (tx) => {
      if (key.role === 'OWNER') {
        const owners = await this.keys.lockActiveOwnerKeys(auth, tx);
        if (owners.length === 1 && owners[0] === id) throw new LastOwnerKeyException(auth.mode);
      }
      await this.keys.revoke(auth, id, clock.now(), tx);
    });
    await this.authenticator.evict(key.keyHash);
  }
}

export function toDto(key: ApiKeyEntity): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    description: key.description,
    mode: key.mode,
    role: key.role,
    scopes: key.scopes,
    prefix: key.prefix,
    last4: key.last4,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
  };
}
