CREATE TABLE `feedback` (
	`request_id` text NOT NULL,
	`item_id` text NOT NULL,
	`type` text NOT NULL,
	`at` integer NOT NULL,
	`experiment_id` text,
	`arm` text,
	`team` text,
	PRIMARY KEY(`request_id`, `item_id`, `type`)
);
--> statement-breakpoint
CREATE INDEX `feedback_experiment` ON `feedback` (`experiment_id`);--> statement-breakpoint
CREATE TABLE `searches` (
	`request_id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`experiment_id` text,
	`arm` text,
	`round` integer NOT NULL,
	`other_round` integer,
	`user_key` text NOT NULL,
	`latency_ms` real NOT NULL,
	`total` integer NOT NULL,
	`zero_result` integer NOT NULL,
	`error` integer NOT NULL,
	`keyword_source` text NOT NULL,
	`fallback` integer NOT NULL,
	`shown` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `searches_experiment` ON `searches` (`experiment_id`,`arm`);