CREATE TABLE `bm25_runs` (
	`query` text PRIMARY KEY NOT NULL,
	`ranked` text NOT NULL,
	`cutoff` integer NOT NULL,
	`tuned_on` integer NOT NULL,
	`split_round` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `item_details` (
	`id` text PRIMARY KEY NOT NULL,
	`description` text NOT NULL,
	`features` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `judgments` (
	`query` text NOT NULL,
	`item_id` text NOT NULL,
	`rater` text NOT NULL,
	`label` text NOT NULL,
	`judged_at` text NOT NULL,
	PRIMARY KEY(`query`, `item_id`, `rater`)
);
--> statement-breakpoint
CREATE INDEX `judgments_query` ON `judgments` (`query`);--> statement-breakpoint
CREATE TABLE `query_sets` (
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`query` text NOT NULL,
	PRIMARY KEY(`name`, `position`)
);
--> statement-breakpoint
ALTER TABLE `labels` ADD `loaded_at` text;