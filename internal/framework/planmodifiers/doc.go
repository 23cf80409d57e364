// Package planmodifiers holds the plan modifiers and plan helpers of the
// plugin framework that know nothing of the API: computed attributes kept
// while their inputs do not change, the warning of a destroy or replace, the
// attributes a plan replaces. It imports nothing of this repository; a plan
// rule of an object of the API belongs to the family of that object.
package planmodifiers
