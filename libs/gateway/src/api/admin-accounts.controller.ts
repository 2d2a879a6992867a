import { Controller, Delete, Get, Param, Post } from '@nestjs/common';
import {
  type CreateAccountRequest,
  CreateAccountRequestSchema,
  statusAcknowledgement,
  type Account,
  type CreatedApiKey,
  type StatusAcknowledgement,
} from '@guidepost/contracts-http';
import { ValidBody } from '@guidepost/platform-http';
import { AccountAdministration } from '../application/account-administration.service';

/** Admin API for accounts and API keys (Bearer admin token). POSTs answer 201, the rest 200 (Nest's defaults). */
@Controller('admin/v1/accounts')
export class AdminAccountsController {
  constructor(private readonly administration: AccountAdministration) {}

  @Post()
  create(@ValidBody(CreateAccountRequestSchema) request: CreateAccountRequest): Promise<Account> {
    return this.administration.createAccount(request);
  }

  @Get()
  list(): Promise<Account[]> {
    return this.administration.listAccounts();
  }

  @Post(':account_id/api_keys')
  createApiKey(@Param('account_id') accountId: string): Promise<CreatedApiKey> {
    return this.administration.createApiKey(accountId);
  }

  @Delete(':account_id/api_keys/:key')
  async revokeApiKey(@Param('account_id') accountId: string, @Param('key') key: string): Promise<StatusAcknowledgement> {
    await this.administration.revokeApiKey(accountId, key);
    return statusAcknowledgement();
  }
}
