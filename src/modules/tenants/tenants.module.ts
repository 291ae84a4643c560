import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../api-keys';
import { TenantEntity } from './entities/tenant.entity';
import { TenantsService } from './tenants.service';

@Module({
  imports: [TypeOrmModule.forFeature([TenantEntity]), ApiKeysModule],
  providers: [TenantsService],
  exports: [TenantsService],
})
export class TenantsModule {}
