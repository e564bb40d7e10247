ALTER TABLE `searches` ADD `query` text;--> statement-breakpoint
CREATE INDEX `searches_at` ON `searches` (`at`,`request_id`);--> statement-breakpoint
CREATE INDEX `feedback_at` ON `feedback` (`at`,`request_id`,`item_id`,`type`);