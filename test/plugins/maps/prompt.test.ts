// Plain-English map requests split into what and where (pure).
import t from 'tap'
import { splitPrompt } from '../../../plugins/maps/prompt.ts'

// [prompt, what, where, search]
const CASES: Array<[string, string, string, string]> = [
  ['dentists in Austin TX', 'dentists', 'Austin TX', 'dentists in Austin TX'],
  ['coffee shops near Brooklyn, NY', 'coffee shops', 'Brooklyn, NY', 'coffee shops in Brooklyn, NY'],
  ['plumbers Denver', 'plumbers', 'Denver', 'plumbers in Denver'],
  ['best pizza in new york city', 'pizza', 'new york city', 'best pizza in new york city'],
  ['vegan restaurants around Shoreditch London', 'vegan restaurants', 'Shoreditch London', 'vegan restaurants in Shoreditch London'],
  ['law firms located in Miami, Florida', 'law firms', 'Miami, Florida', 'law firms in Miami, Florida'],
  ['hair salons, Berlin', 'hair salons', 'Berlin', 'hair salons in Berlin'],
  ['car repair in 90210', 'car repair', '90210', 'car repair in 90210'],
  ['Find me 50 dentists in Austin, Texas', 'dentists', 'Austin, Texas', 'dentists in Austin, Texas'],
  ['gyms near me', 'gyms', '', 'gyms'],
  ['top 10 sushi restaurants in San Francisco', 'sushi restaurants', 'San Francisco', 'sushi restaurants in San Francisco'],
  ['electricians Manchester UK', 'electricians', 'Manchester UK', 'electricians in Manchester UK'],
  ['bakeries in Paris, France.', 'bakeries', 'Paris, France', 'bakeries in Paris, France'],
  ['Italian restaurants within Chicago', 'Italian restaurants', 'Chicago', 'Italian restaurants in Chicago'],
  ['accountants based in Toronto', 'accountants', 'Toronto', 'accountants in Toronto'],
  ['veterinarians close to Seattle WA', 'veterinarians', 'Seattle WA', 'veterinarians in Seattle WA'],
  ['yoga studios in the Bronx', 'yoga studios', 'the Bronx', 'yoga studios in the Bronx'],
  ['car dealers 10001', 'car dealers', '10001', 'car dealers in 10001'],
  ['hotels', 'hotels', '', 'hotels'],
  ['pharmacies at Heathrow Airport', 'pharmacies', 'Heathrow Airport', 'pharmacies in Heathrow Airport'],
  ['looking for roofing contractors in Dallas-Fort Worth', 'roofing contractors', 'Dallas-Fort Worth', 'roofing contractors in Dallas-Fort Worth'],
  ['drive in theaters in Ohio', 'drive in theaters', 'Ohio', 'drive in theaters in Ohio'],
  ['where can I find a good barber in Lisbon?', 'barber', 'Lisbon', 'good barber in Lisbon'],
  ['florists: Amsterdam', 'florists', 'Amsterdam', 'florists in Amsterdam'],
  ['Dentist - Austin TX', 'Dentist', 'Austin TX', 'Dentist in Austin TX'],
  ['restaurants in São Paulo', 'restaurants', 'São Paulo', 'restaurants in São Paulo'],
  ['pizza new york', 'pizza', 'new york', 'pizza in new york'],
  ['food trucks Portland', 'food trucks', 'Portland', 'food trucks in Portland'],
  ['please list all the cafes in the city of Leeds', 'cafes', 'Leeds', 'cafes in Leeds'],
  ['bakery SW1A 1AA', 'bakery', 'SW1A 1AA', 'bakery in SW1A 1AA'],
  ['  Plumbers   in   Denver,  CO  ', 'Plumbers', 'Denver, CO', 'Plumbers in Denver, CO'],
]

t.test(`${CASES.length} phrasings split into what and where`, async t => {
  t.ok(CASES.length >= 20)
  for (const [prompt, what, where, search] of CASES) {
    t.same(splitPrompt(prompt), { what, where, subject: search.replace(/ in .*$/, '') === search ? search : search.slice(0, search.lastIndexOf(' in ')), search }, JSON.stringify(prompt))
  }
})

t.test('the subject keeps ranking words the what drops', async t => {
  t.match(splitPrompt('best pizza in new york city'), { what: 'pizza', subject: 'best pizza' })
  t.match(splitPrompt('top rated cheap hotels near Times Square'), { what: 'hotels', where: 'Times Square' })
})
