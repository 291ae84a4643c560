import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Authenticator } from '../../common/auth/auth.types';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyEntity } from './entities/api-key.entity';
import { MeController } from './me.controller';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  controllers: [ApiKeysController, MeController],
  providers: [ApiKeysRepository, ApiKeysService, ApiKeyAuthenticator, { provide: Authenticator, useExisting: ApiKeyAuthenticator }],
  exports: [ApiKeysService, Authenticator],
})
export class ApiKeysModule {}
